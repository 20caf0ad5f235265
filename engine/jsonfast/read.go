// This file holds the Reader: a position in a JSON document whose methods
// check the syntax of what they consume as json.Valid does.

package jsonfast

import "unicode/utf8"

// Reader is a position in a JSON document.
type Reader struct {
	b []byte
	i int
}

// NewReader returns a Reader at the start of b.
func NewReader(b []byte) Reader { return Reader{b: b} }

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
	r.ws()
	if len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "null" {
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
		} else if !unmatched(key, names) || !r.Skip() {
			return false
		}
		if more, ok := r.after('}'); !more {
			return ok
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
		key, ok := r.Text(&scratch)
		if !ok || r.Peek() != ':' {
			return false
		}
		r.i++
		if !member(key) {
			return false
		}
		if more, ok := r.after('}'); !more {
			return ok
		}
	}
}

// after consumes what follows an element of an object or array: a comma
// (more is true) or the closing byte (ok is true).
func (r *Reader) after(closing byte) (more, ok bool) {
	switch r.Peek() {
	case ',':
		r.i++
		return true, true
	case closing:
		r.i++
		return false, true
	}
	return false, false
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
		if more, ok := r.after(']'); !more {
			return ok
		}
	}
}

// MaxDepth bounds the nesting Skip follows; a deeper value reports false
// (encoding/json, which the caller falls back to, allows 10000 levels).
const MaxDepth = 100

// Skip passes over the value that is next, checking its syntax.
func (r *Reader) Skip() bool { return r.skip(0) }

func (r *Reader) skip(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	switch c := r.Peek(); {
	case c == '"':
		_, ok := r.rawString()
		return ok
	case c == '{':
		r.i++
		if r.Peek() == '}' {
			r.i++
			return true
		}
		for {
			if _, ok := r.rawString(); !ok || r.Peek() != ':' {
				return false
			}
			r.i++
			if !r.skip(depth + 1) {
				return false
			}
			if more, ok := r.after('}'); !more {
				return ok
			}
		}
	case c == '[':
		return r.Array(func() bool { return r.skip(depth + 1) })
	case c == 't':
		return r.literal("true")
	case c == 'f':
		return r.literal("false")
	case c == 'n':
		return r.literal("null")
	}
	lit, _ := r.number()
	return lit != nil
}

// Raw returns the bytes of the value that is next, without surrounding
// white space, as encoding/json hands them to an Unmarshaler. They alias
// the document.
func (r *Reader) Raw() ([]byte, bool) {
	r.ws()
	start := r.i
	ok := r.Skip()
	return r.b[start:r.i], ok
}
