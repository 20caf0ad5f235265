package engine

import "unicode/utf8"

// plainJSONString returns the value of the JSON string literal b when it
// needs no unescaping: quoted, valid UTF-8, and without backslashes, inner
// quotes or control characters. Its value is then the bytes between the
// quotes, read without a second decoder pass (message content is decoded
// on every run). Any other input reports false and goes through
// encoding/json, which also decides what is invalid.
func plainJSONString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	in := b[1 : len(b)-1]
	for _, ch := range in {
		if ch < 0x20 || ch == '"' || ch == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(in) {
		return "", false
	}
	return string(in), true
}
