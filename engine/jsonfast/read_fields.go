package jsonfast

import "encoding/json"

// The Read functions decode the value that is next into a field holding
// its zero value, as encoding/json does: null leaves a string, number or
// bool as it is and a pointer, slice or map nil. Each reports false on
// what it does not handle.

// ReadString decodes a string field.
func ReadString(r *Reader, out *string) bool {
	if r.Null() {
		return true
	}
	s, ok := r.String()
	*out = s
	return ok
}

// ReadStringPtr decodes a *string field.
func ReadStringPtr(r *Reader, out **string) bool {
	if r.Null() {
		return true
	}
	s, ok := r.String()
	*out = &s
	return ok
}

// ReadIntern decodes a string field as Reader.Intern does: a value equal
// to an element of known is that element, with no allocation.
func ReadIntern(r *Reader, out *string, known []string) bool {
	if r.Null() {
		return true
	}
	s, ok := r.Intern(known)
	*out = s
	return ok
}

// ReadBool decodes a bool field.
func ReadBool(r *Reader, out *bool) bool {
	if r.Null() {
		return true
	}
	v, ok := r.Bool()
	*out = v
	return ok
}

// ReadBoolPtr decodes a *bool field.
func ReadBoolPtr(r *Reader, out **bool) bool {
	if r.Null() {
		return true
	}
	v, ok := r.Bool()
	*out = &v
	return ok
}

// ReadInt decodes an int field (plain integers only).
func ReadInt(r *Reader, out *int) bool {
	if r.Null() {
		return true
	}
	n, ok := r.Int()
	*out = int(n)
	return ok
}

// ReadInt64 decodes an int64 field (plain integers only).
func ReadInt64(r *Reader, out *int64) bool {
	if r.Null() {
		return true
	}
	n, ok := r.Int()
	*out = n
	return ok
}

// ReadFloatPtr decodes a *float64 field.
func ReadFloatPtr(r *Reader, out **float64) bool {
	if r.Null() {
		return true
	}
	f, ok := r.Float()
	*out = &f
	return ok
}

// ReadRaw copies the value, as json.RawMessage.UnmarshalJSON does (null
// included).
func ReadRaw(r *Reader, out *json.RawMessage) bool {
	raw, ok := r.Raw()
	*out = append(json.RawMessage(nil), raw...)
	return ok
}

// ReadRaws decodes a []json.RawMessage field.
func ReadRaws(r *Reader, out *[]json.RawMessage) bool {
	if r.Null() {
		return true
	}
	s := make([]json.RawMessage, 0, 2)
	ok := r.Array(func() bool {
		var raw json.RawMessage
		ok := ReadRaw(r, &raw)
		s = append(s, raw)
		return ok
	})
	*out = s
	return ok
}

// ReadStrings decodes a []string field.
func ReadStrings(r *Reader, out *[]string) bool {
	if r.Null() {
		return true
	}
	s := make([]string, 0, 2)
	ok := r.Array(func() bool {
		var v string
		ok := ReadString(r, &v)
		s = append(s, v)
		return ok
	})
	*out = s
	return ok
}

// ReadSlice decodes an array (an empty one is a non-nil empty slice) or
// null; elem decodes into a zero element.
func ReadSlice[T any](r *Reader, out *[]T, elem func(*T) bool) bool {
	return ReadSliceIn(r, out, nil, elem)
}

// ReadSliceIn is ReadSlice with up to len(room) elements decoded into
// room, the caller's memory, instead of an array of their own; a longer
// array moves to a new one, as append does. room must not be used for
// anything else while *out is in use.
func ReadSliceIn[T any](r *Reader, out *[]T, room []T, elem func(*T) bool) bool {
	if r.Null() {
		return true
	}
	s := room[:0:len(room)]
	if len(room) == 0 {
		s = make([]T, 0, 2)
	}
	ok := r.Array(func() bool {
		var zero T
		s = append(s, zero)
		return elem(&s[len(s)-1])
	})
	*out = s
	return ok
}

// ReadRawMap decodes an object of raw values; a repeated key keeps its
// last value, as in encoding/json.
func ReadRawMap(r *Reader, out *map[string]json.RawMessage) bool {
	if r.Null() {
		return true
	}
	m := map[string]json.RawMessage{}
	*out = m
	return r.Members(func(key []byte) bool {
		var raw json.RawMessage
		ok := ReadRaw(r, &raw)
		m[string(key)] = raw
		return ok
	})
}

// ReadStringMap decodes a map[string]string field; a repeated key keeps
// its last value, as in encoding/json.
func ReadStringMap(r *Reader, out *map[string]string) bool {
	if r.Null() {
		return true
	}
	m := map[string]string{}
	*out = m
	return r.Members(func(key []byte) bool {
		var s string
		ok := ReadString(r, &s)
		m[string(key)] = s
		return ok
	})
}
