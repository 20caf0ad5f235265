package engine

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// JSONAppender is a record that encodes itself without reflection. The
// bytes it appends must be exactly those json.Marshal writes for it, so
// that records written either way read back the same; a store's Tx.Put
// uses it when the value has it (EncodeValue).
type JSONAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// JSONDecoder is a record that decodes itself without reflection from the
// bytes json.Marshal wrote for it (and from any other JSON encoding/json
// accepts, by falling back to it); a store's Tx.Get uses it (DecodeValue).
type JSONDecoder interface {
	DecodeJSON(b []byte) error
}

// AppendValue appends the JSON encoding of v to b: v's own AppendJSON
// when it has one, encoding/json otherwise.
func AppendValue(b []byte, v any) ([]byte, error) {
	if a, ok := v.(JSONAppender); ok {
		return a.AppendJSON(b)
	}
	out, err := json.Marshal(v)
	if err != nil || b == nil {
		return out, err
	}
	return append(b, out...), nil
}

// DecodeValue decodes the JSON b into v: v's own DecodeJSON when it has
// one, encoding/json otherwise.
func DecodeValue(b []byte, v any) error {
	if d, ok := v.(JSONDecoder); ok {
		return d.DecodeJSON(b)
	}
	return json.Unmarshal(b, v)
}

// errJSONFallback tells an AppendJSON that a value needs encoding/json.
var errJSONFallback = errors.New("value needs encoding/json")

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal escaped as
// encoding/json escapes it: quote, backslash and control characters,
// <, > and & as \u escapes, U+2028 and U+2029, and each invalid UTF-8
// byte as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64; NaN and
// infinities, which it refuses, return errJSONFallback.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, errJSONFallback
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendJSONTime appends t as time.Time.MarshalJSON writes it (RFC 3339
// with nanoseconds); times it refuses or that need its checks (a year
// outside 0-9999, an offset with seconds) return errJSONFallback.
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	_, off := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		return b, errJSONFallback
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}
