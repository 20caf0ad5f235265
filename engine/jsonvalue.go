package engine

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/hearth-dev/hearth/engine/jsonwrite"
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

// appendJSONString appends s as a JSON string literal escaped as
// json.Marshal escapes it (HTML characters included); see jsonwrite.String.
func appendJSONString(b []byte, s string) []byte {
	return jsonwrite.String(b, s, true)
}

// appendJSONFloat appends f as encoding/json writes a float64; NaN and
// infinities, which it refuses, return errJSONFallback.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	b, ok := jsonwrite.Float(b, f)
	if !ok {
		return b, errJSONFallback
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
