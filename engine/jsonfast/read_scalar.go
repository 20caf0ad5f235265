package jsonfast

import (
	"encoding/binary"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// rawString returns the bytes between the quotes of the string that is
// next, escapes left in, checking that every escape is valid and that no
// control character stands unescaped.
func (r *Reader) rawString() ([]byte, bool) {
	raw, _, ok := r.scanString()
	return raw, ok
}

// plainByte marks the bytes the first pass of scanString steps over:
// ASCII from the space up, but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString is rawString; plain reports that the string is ASCII with
// no escape, so it needs neither a UTF-8 check nor unescaping. Its first
// pass looks each byte up once (most strings of an API document end
// there); a string with an escape, a control byte or a non-ASCII byte is
// checked byte by byte from that point.
func (r *Reader) scanString() (raw []byte, plain, ok bool) {
	if r.Peek() != '"' {
		return nil, false, false
	}
	start := r.i + 1
	j := start
	// Eight bytes at a time first, then byte by byte to the stop.
	for j+8 <= len(r.b) && JSONPlain(binary.LittleEndian.Uint64(r.b[j:j+8])) {
		j += 8
	}
	for j < len(r.b) && plainByte[r.b[j]] {
		j++
	}
	if j < len(r.b) && r.b[j] == '"' {
		r.i = j + 1
		return r.b[start:j], true, true
	}
	for ; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			return r.b[start:j], false, true
		case c == '\\':
			if j++; j >= len(r.b) {
				return nil, false, false
			}
			switch r.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := hex4(r.b[j+1:]); !ok {
					return nil, false, false
				}
				j += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		}
	}
	return nil, false, false
}

// Text decodes the string that is next without allocating: the result
// aliases the document, or *scratch (reused, grown as needed) when the
// string holds escapes, and is valid until the next use of *scratch.
// Invalid UTF-8 and lone surrogates (which encoding/json replaces)
// report false.
func (r *Reader) Text(scratch *[]byte) ([]byte, bool) {
	b, grown, ok := r.text(*scratch)
	*scratch = grown
	return b, ok
}

// text is Text with the scratch buffer passed and returned by value, so
// that a caller's stack array stays on the stack.
func (r *Reader) text(scratch []byte) (b, grown []byte, ok bool) {
	raw, plain, ok := r.scanString()
	if plain {
		return raw, scratch, true
	}
	if !ok || !utf8.Valid(raw) {
		return nil, scratch, false
	}
	for _, c := range raw {
		if c == '\\' {
			out, ok := unescape(scratch[:0], raw)
			return out, out, ok
		}
	}
	return raw, scratch, true
}

// String decodes the string that is next into a new string, as Text.
func (r *Reader) String() (string, bool) {
	var arr [128]byte
	b, _, ok := r.text(arr[:0])
	return string(b), ok
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

// unescape appends the value of a JSON string body (between its quotes,
// checked by rawString) to out. A lone surrogate,
// which encoding/json replaces, reports false: the caller falls back to
// encoding/json.
func unescape(out, raw []byte) ([]byte, bool) {
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
			c, ok := hex4(raw[i+1:])
			if !ok {
				return nil, false
			}
			i += 4
			if utf16.IsSurrogate(c) {
				if i+6 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
					return nil, false
				}
				c2, ok := hex4(raw[i+3:])
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

// hex4 decodes the four hex digits of a \u escape at the start of b.
func hex4(b []byte) (rune, bool) {
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

// literal consumes lit when it is next.
func (r *Reader) literal(lit string) bool {
	if len(r.b)-r.i < len(lit) || string(r.b[r.i:r.i+len(lit)]) != lit {
		return false
	}
	r.i += len(lit)
	return true
}

// Bool decodes a true or false literal.
func (r *Reader) Bool() (bool, bool) {
	switch r.Peek() {
	case 't':
		return true, r.literal("true")
	case 'f':
		return false, r.literal("false")
	}
	return false, false
}

// number consumes the number that is next, checking its syntax
// (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), and returns its
// literal and whether it is a plain integer.
func (r *Reader) number() (lit []byte, integer bool) {
	r.ws()
	b, i := r.b, r.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return nil, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return nil, false
		}
		i, integer = j, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return nil, false
		}
		i, integer = j, false
	}
	lit, r.i = b[r.i:i], i
	return lit, integer
}

// digits returns the index of the first byte at or after i in b that is
// not a decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// Int decodes a plain integer of at most 15 digits (no fraction or
// exponent, which encoding/json refuses for an int field).
func (r *Reader) Int() (int64, bool) {
	lit, integer := r.number()
	if !integer || len(lit) > 16 {
		return 0, false
	}
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range lit {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Float decodes a number as encoding/json does for a float64 field.
func (r *Reader) Float() (float64, bool) {
	lit, _ := r.number()
	if lit == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}
