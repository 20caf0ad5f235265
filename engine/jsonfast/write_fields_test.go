package jsonfast

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// omitFields is a struct of omitempty fields, one of each kind the field
// functions write.
type omitFields struct {
	ID    int             `json:"id"`
	S     string          `json:"s,omitempty"`
	F     *float64        `json:"f,omitempty"`
	Raw   json.RawMessage `json:"raw,omitempty"`
	Slice []string        `json:"slice,omitempty"`
}

func appendOmitFields(v *omitFields, html bool) ([]byte, bool) {
	b := append([]byte(nil), `{"id":0`...)
	b = AppendStringField(b, `,"s":`, v.S, html)
	b, ok := AppendFloatField(b, `,"f":`, v.F)
	if !ok {
		return nil, false
	}
	if b, ok = AppendRawField(b, `,"raw":`, v.Raw, html); !ok {
		return nil, false
	}
	b = AppendStringsField(b, `,"slice":`, v.Slice, html)
	return append(b, '}'), true
}

func TestFieldsMatchEncodingJSON(t *testing.T) {
	f, zero, inf := 0.25, 0.0, math.Inf(1)
	for _, v := range []omitFields{
		{},
		{S: "<a & b>", F: &f, Raw: json.RawMessage(` {"x": "<y>"} `), Slice: []string{"one", "<two>"}},
		{F: &zero, Raw: json.RawMessage(`null`), Slice: []string{}},
		{F: &inf},
		{Raw: json.RawMessage(`{bad`)},
	} {
		for _, html := range []bool{true, false} {
			want, wantErr := stdEncode(t, &v, html)
			got, ok := appendOmitFields(&v, html)
			if ok != (wantErr == nil) || !bytes.Equal(got, want) {
				t.Errorf("%+v (html %v): %s %v, encoding/json %s %v", v, html, got, ok, want, wantErr)
			}
		}
	}
}
