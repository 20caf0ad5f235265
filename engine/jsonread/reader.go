// Package jsonread reads JSON documents by hand for the decoders of the
// request hot path. A Reader only reads documents json.Valid has accepted,
// and every method reports false on a shape it does not handle exactly as
// encoding/json would (escaped or case-folded keys, duplicate keys,
// invalid UTF-8, lone surrogates, numbers out of range): the caller then
// decodes the document with encoding/json, so the result cannot differ.
package jsonread

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Reader is a position in a syntactically valid JSON document.
type Reader struct {
	b []byte
	i int
}

// New returns a Reader at the start of b, which json.Valid must accept.
func New(b []byte) Reader { return Reader{b: b} }

func (r *Reader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// Peek skips white space and returns the next byte (0 at the end).
func (r *Reader) Peek() byte {
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

// End reports whether only white space is left.
func (r *Reader) End() bool { return r.Peek() == 0 && r.i == len(r.b) }

// Null consumes a null literal when one is next.
func (r *Reader) Null() bool {
	if r.Peek() == 'n' {
		r.i += 4
		return true
	}
	return false
}

// Object calls field for each key of the object that is next, with the
// key's index in names. A key no name matches exactly is skipped when
// encoding/json could not match it either (it folds keys to a field name
// case-insensitively): plain ASCII without escapes that equals no name
// ignoring case. Any other key, and a name seen twice, reports false.
// Names must be ASCII and at most 64.
func (r *Reader) Object(names []string, field func(k int) bool) bool {
	if r.Peek() != '{' {
		return false
	}
	r.i++
	var seen uint64
	if r.Peek() == '}' {
		r.i++
		return true
	}
	for {
		key, ok := r.rawString()
		if !ok || r.Peek() != ':' {
			return false
		}
		r.i++
		k := -1
		for j, n := range names {
			if string(key) == n {
				k = j
				break
			}
		}
		if k >= 0 {
			if seen&(1<<k) != 0 || !field(k) {
				return false
			}
			seen |= 1 << k
		} else {
			if !unmatched(key, names) {
				return false
			}
			r.Skip()
		}
		switch r.Peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			return false
		}
	}
}

// unmatched reports whether encoding/json would ignore key for a struct
// with the field names names.
func unmatched(key []byte, names []string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	for _, n := range names {
		if asciiEqualFold(key, n) {
			return false
		}
	}
	return true
}

func asciiEqualFold(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Members calls member for each key of the object that is next, the key
// unescaped (valid until the next call). It reports false on a key it
// cannot decode exactly.
func (r *Reader) Members(member func(key []byte) bool) bool {
	if r.Peek() != '{' {
		return false
	}
	r.i++
	if r.Peek() == '}' {
		r.i++
		return true
	}
	var scratch []byte
	for {
		raw, ok := r.rawString()
		if !ok || !utf8.Valid(raw) || r.Peek() != ':' {
			return false
		}
		r.i++
		key := raw
		if hasEscape(raw) {
			if scratch, ok = Unescape(scratch[:0], raw); !ok {
				return false
			}
			key = scratch
		}
		if !member(key) {
			return false
		}
		switch r.Peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			return false
		}
	}
}

// Array calls elem for each element of the array that is next.
func (r *Reader) Array(elem func() bool) bool {
	if r.Peek() != '[' {
		return false
	}
	r.i++
	if r.Peek() == ']' {
		r.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch r.Peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return true
		default:
			return false
		}
	}
}

// Skip passes over the value that is next.
func (r *Reader) Skip() {
	r.ws()
	depth := 0
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch c {
		case '"':
			r.rawString()
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				r.i++
			}
			if depth <= 0 {
				return
			}
		case ',':
			if depth == 0 {
				return
			}
		case ':', ' ', '\t', '\n', '\r':
		default:
			if depth == 0 {
				for r.i < len(r.b) && !isDelim(r.b[r.i]) {
					r.i++
				}
				return
			}
		}
		r.i++
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// Raw returns the bytes of the value that is next, without surrounding
// white space, as encoding/json hands them to an Unmarshaler. They alias
// the document.
func (r *Reader) Raw() []byte {
	r.ws()
	start := r.i
	r.Skip()
	return r.b[start:r.i]
}

// rawString returns the bytes between the quotes of the string that is
// next, escapes left in.
func (r *Reader) rawString() ([]byte, bool) {
	if r.Peek() != '"' {
		return nil, false
	}
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		switch r.b[j] {
		case '\\':
			j++
		case '"':
			r.i = j + 1
			return r.b[start:j], true
		}
	}
	return nil, false
}

// String decodes the string that is next into a new string. Invalid UTF-8
// and lone surrogates (which encoding/json replaces) report false.
func (r *Reader) String() (string, bool) {
	raw, ok := r.rawString()
	if !ok || !utf8.Valid(raw) {
		return "", false
	}
	if !hasEscape(raw) {
		return string(raw), true
	}
	var arr [128]byte
	out, ok := Unescape(arr[:0], raw)
	return string(out), ok
}

// Intern is String, but a string equal to an element of known is that
// element, with no allocation.
func (r *Reader) Intern(known []string) (string, bool) {
	save := r.i
	if raw, ok := r.rawString(); ok {
		for _, k := range known {
			if string(raw) == k {
				return k, true
			}
		}
	}
	r.i = save
	return r.String()
}

func hasEscape(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' {
			return true
		}
	}
	return false
}

// Unescape appends the value of a JSON string body (between its quotes,
// already checked to hold only valid escapes) to out. A lone surrogate,
// which encoding/json replaces, reports false: the caller falls back to
// encoding/json.
func Unescape(out, raw []byte) ([]byte, bool) {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			c, ok := Hex4(raw[i+1:])
			if !ok {
				return nil, false
			}
			i += 4
			if utf16.IsSurrogate(c) {
				if i+6 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
					return nil, false
				}
				c2, ok := Hex4(raw[i+3:])
				c = utf16.DecodeRune(c, c2)
				if !ok || c == utf8.RuneError {
					return nil, false
				}
				i += 6
			}
			out = utf8.AppendRune(out, c)
		default:
			return nil, false
		}
	}
	return out, true
}

// Hex4 decodes the four hex digits of a \u escape at the start of b.
func Hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Bool decodes a true or false literal.
func (r *Reader) Bool() (bool, bool) {
	switch r.Peek() {
	case 't':
		r.i += 4
		return true, true
	case 'f':
		r.i += 5
		return false, true
	}
	return false, false
}

// number returns the literal of the number that is next.
func (r *Reader) number() ([]byte, bool) {
	c := r.Peek()
	if c != '-' && (c < '0' || c > '9') {
		return nil, false
	}
	start := r.i
	for r.i < len(r.b) && !isDelim(r.b[r.i]) {
		r.i++
	}
	return r.b[start:r.i], true
}

// Int decodes a plain integer of at most 15 digits (no fraction or
// exponent, which encoding/json refuses for an int field).
func (r *Reader) Int() (int64, bool) {
	lit, ok := r.number()
	if !ok || len(lit) > 16 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(lit), 10, 64)
	return n, err == nil
}

// Float decodes a number as encoding/json does for a float64 field.
func (r *Reader) Float() (float64, bool) {
	lit, ok := r.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}
