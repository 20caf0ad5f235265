package jsonfast

import "unicode/utf8"

// PlainString returns the bytes between the quotes of the JSON string
// literal b when they are its value as encoding/json decodes it: quoted,
// valid UTF-8, and without backslashes, inner quotes or control
// characters. Any other input reports false, for encoding/json to decode
// (and to judge whether it is valid).
func PlainString(b []byte) ([]byte, bool) {
	n := len(b)
	if n < 2 || b[0] != '"' || b[n-1] != '"' {
		return nil, false
	}
	in := b[1 : n-1]
	for _, c := range in {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(in) {
		return nil, false
	}
	return in, true
}
