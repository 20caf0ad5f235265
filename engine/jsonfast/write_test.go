package jsonfast

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// stdEncode is what encoding/json writes for v, with or without HTML
// escaping (an Encoder's trailing newline removed).
func stdEncode(t testing.TB, v any, html bool) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

var stringCases = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rret\bback\fform",
	"\x00\x01\x1f\x7f", "<script>&amp;</script>", "caf\u00e9 \u65e5\u672c \U0001F600",
	"line\u2028para\u2029", "bad \xff\xfe utf8 \xe2\x80", "\xed\xa0\x80 surrogate half",
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range stringCases {
		for _, html := range []bool{true, false} {
			want, _ := stdEncode(t, s, html)
			if got := AppendString(nil, s, html); !bytes.Equal(got, want) {
				t.Errorf("AppendString(%q, html=%v) = %s, encoding/json %s", s, html, got, want)
			}
		}
	}
}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 0.7, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.125,
		-2.5e-10, math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0000000000000002} {
		want, _ := json.Marshal(f)
		got, ok := AppendFloat(nil, f)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("AppendFloat(%v) = %s %v, encoding/json %s", f, got, ok, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, ok := AppendFloat(nil, f); ok {
			t.Errorf("AppendFloat(%v) accepted a value encoding/json refuses", f)
		}
	}
}

var rawCases = []string{
	``, `null`, `{}`, ` { "a" : [ 1 , 2 ] , "b":"x y" } `, `{"d":"<b>&</b>"}`, "[\"\u2028\",\"\u2029\"]",
	`{"esc":"\"<\\\"> "}`, "\"\xff\"", `{"a":}`, `[1,2`, `"unterminated`, `{"type":"object","properties":{"q":{"type":"string"}}}`,
	"\t[ true ,\n false , null ]\r\n",
}

func TestAppendRawMatchesEncodingJSON(t *testing.T) {
	for _, r := range rawCases {
		for _, html := range []bool{true, false} {
			checkRaw(t, []byte(r), html)
		}
	}
}

func checkRaw(t *testing.T, raw []byte, html bool) {
	t.Helper()
	if len(raw) == 0 {
		checkRaw1(t, nil, html)
	}
	checkRaw1(t, raw, html)
}

func checkRaw1(t *testing.T, raw []byte, html bool) {
	t.Helper()
	want, err := stdEncode(t, json.RawMessage(raw), html)
	got, ok := AppendRaw(nil, raw, html)
	if ok != (err == nil) {
		t.Fatalf("AppendRaw(%q, html=%v) ok=%v, encoding/json error %v", raw, html, ok, err)
	}
	if ok && !bytes.Equal(got, want) {
		t.Fatalf("AppendRaw(%q, html=%v) = %s, encoding/json %s", raw, html, got, want)
	}
}

func FuzzStringAndRaw(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	for _, r := range rawCases {
		f.Add(r)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			want, _ := stdEncode(t, s, html)
			if got := AppendString(nil, s, html); !bytes.Equal(got, want) {
				t.Fatalf("AppendString(%q, html=%v) = %s, encoding/json %s", s, html, got, want)
			}
			checkRaw(t, []byte(s), html)
		}
	})
}
