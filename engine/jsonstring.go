package engine

// AppendJSONString appends s as a JSON string literal with exactly the
// bytes encoding/json writes for it (its HTML-safe escapes, U+2028 and
// U+2029, \ufffd for each invalid UTF-8 byte), for records of other
// packages that encode themselves (JSONAppender).
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s) }
