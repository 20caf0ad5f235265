package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"
)

var jsonStringCases = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
	"<b>&amp;</b>", "line\u2028sep\u2029par", "bad \xff utf8 \xc3", "héllo wörld ✓ 🎉", "\xed\xa0\x80 surrogate",
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range jsonStringCases {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

func TestAppendJSONFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5e-7, 1e-6, 9.99e-7, 123456.789, 1e20, 1e21, 1.2e-9,
		3.4e-100, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.000125, 2.5e-5} {
		want, _ := json.Marshal(f)
		got, err := appendJSONFloat(nil, f)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("appendJSONFloat(%v) = %s, %v; encoding/json %s", f, got, err, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := appendJSONFloat(nil, f); err == nil {
			t.Errorf("appendJSONFloat(%v) accepted a value encoding/json refuses", f)
		}
	}
}

func TestAppendJSONTimeMatchesEncodingJSON(t *testing.T) {
	zone := time.FixedZone("x", 5*3600+30*60)
	for _, tm := range []time.Time{time.Time{}, time.Unix(1700000000, 123456789).UTC(), time.Unix(1700000000, 0).In(zone),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Now()} {
		want, _ := json.Marshal(tm)
		got, err := appendJSONTime(nil, tm)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("appendJSONTime(%v) = %s, %v; encoding/json %s", tm, got, err, want)
		}
	}
	for _, tm := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(0, 0).In(time.FixedZone("s", 30))} {
		if _, err := appendJSONTime(nil, tm); err == nil {
			t.Errorf("appendJSONTime(%v) did not leave it to encoding/json", tm)
		}
	}
}

func TestSpendJSONRoundTrip(t *testing.T) {
	for _, s := range []Spend{{}, {Tokens: 1, NanoUSD: 2, Requests: 3}, {Tokens: math.MaxInt64, NanoUSD: math.MinInt64, Requests: -7}} {
		want, _ := json.Marshal(s)
		got, _ := s.AppendJSON(nil)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendJSON(%+v) = %s, encoding/json %s", s, got, want)
		}
		var back Spend
		if !back.decodeFast(want) || back != s {
			t.Errorf("decodeFast(%s) = %+v, want %+v on the fast path", want, back, s)
		}
	}
}

func TestSpendDecodeJSONFallsBack(t *testing.T) {
	for in, want := range map[string]Spend{
		`{"requests":3,"tokens":1,"nano_usd":2}`:        {Tokens: 1, NanoUSD: 2, Requests: 3},
		`{ "tokens": 1, "nano_usd": 2, "requests": 3 }`: {Tokens: 1, NanoUSD: 2, Requests: 3},
		`{"tokens":01,"nano_usd":2,"requests":3}`:       {},
		`{"tokens":1}`: {Tokens: 1},
		`{"tokens":99999999999999999999,"nano_usd":0,"requests":0}`: {},
		`{"tokens":1,"nano_usd":2,"requests":3,"extra":true}`:       {Tokens: 1, NanoUSD: 2, Requests: 3},
	} {
		var ref spendFields
		refErr := json.Unmarshal([]byte(in), &ref)
		got := Spend{Tokens: 42}
		err := got.DecodeJSON([]byte(in))
		if (err != nil) != (refErr != nil) {
			t.Errorf("DecodeJSON(%s) error %v, encoding/json %v", in, err, refErr)
		}
		if err == nil && (got != Spend(ref) || got != want) {
			t.Errorf("DecodeJSON(%s) = %+v, encoding/json %+v, want %+v", in, got, ref, want)
		}
	}
}

func FuzzSpendDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"tokens":1,"nano_usd":-2,"requests":3}`))
	f.Add([]byte(`{"tokens":9223372036854775807,"nano_usd":-9223372036854775808,"requests":0}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var ref spendFields
		refErr := json.Unmarshal(b, &ref)
		var got Spend
		err := got.DecodeJSON(b)
		if (err != nil) != (refErr != nil) || (err == nil && got != Spend(ref)) {
			t.Fatalf("DecodeJSON(%q) = %+v, %v; encoding/json %+v, %v", b, got, err, ref, refErr)
		}
	})
}
