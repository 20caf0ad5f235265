package jsonfast

import (
	"encoding/json"
	"testing"
)

func TestObjectKeys(t *testing.T) {
	names := []string{"name", "threadId"}
	for _, c := range []struct {
		doc  string
		ok   bool
		seen string
	}{
		{`{"name":"a","other":[1,{"x":"}"}],"threadId":"t"}`, true, "name,threadId"},
		{`{"Name":"a"}`, false, ""},
		{`{"threadid":"a"}`, false, ""},
		{`{"name":"a","name":"b"}`, false, "name"},
		{`{"n\u0061me":"a"}`, false, ""},
		{`{"\u212a":"a"}`, false, ""},
		{`{"ünknown":"a"}`, false, ""},
		{`{}`, true, ""},
	} {
		r := NewReader([]byte(c.doc))
		seen := ""
		ok := r.Object(names, func(k int) bool {
			if seen != "" {
				seen += ","
			}
			seen += names[k]
			return r.Skip()
		})
		if ok != c.ok || seen != c.seen || (ok && !r.End()) {
			t.Errorf("%s: ok %v seen %q", c.doc, ok, seen)
		}
	}
}

func TestReadStringMatchesEncodingJSON(t *testing.T) {
	for _, doc := range []string{`"plain"`, `"a\nb\t\"c\"\\\/"`, `"\u00e9\ud83d\ude00"`, `""`} {
		var want string
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		r := NewReader([]byte(doc))
		if got, ok := r.String(); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", doc, got, ok, want)
		}
	}
	for _, doc := range []string{`"\ud800"`, `"\udc00x"`, "\"\xff\""} {
		r := NewReader([]byte(doc))
		if _, ok := r.String(); ok {
			t.Errorf("%s: decoded, want false (encoding/json replaces it)", doc)
		}
	}
}

func TestRawAndSkip(t *testing.T) {
	r := NewReader([]byte(` [ {"a": [1, "]"]} , -1.5e3 ,"x",null ] `))
	var raws []string
	ok := r.Array(func() bool {
		raw, ok := r.Raw()
		raws = append(raws, string(raw))
		return ok
	})
	want := []string{`{"a": [1, "]"]}`, `-1.5e3`, `"x"`, `null`}
	if !ok || !r.End() || len(raws) != len(want) {
		t.Fatalf("%v %q", ok, raws)
	}
	for i := range want {
		if raws[i] != want[i] {
			t.Errorf("raw %d = %q, want %q", i, raws[i], want[i])
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		doc string
		n   int64
		ok  bool
	}{
		{`12`, 12, true}, {`-0`, 0, true}, {`1.0`, 0, false}, {`1e2`, 0, false},
		{`12345678901234567890`, 0, false}, {`-123456789012345`, -123456789012345, true},
		{`1234567890123456`, 0, false}, {`01`, 0, false}, {`-`, 0, false}, {`+1`, 0, false},
	} {
		r := NewReader([]byte(c.doc))
		n, ok := r.Int()
		if ok = ok && r.End(); ok != c.ok || (ok && n != c.n) {
			t.Errorf("Int(%s) = %d %v", c.doc, n, ok)
		}
	}
	for _, c := range []struct {
		doc string
		f   float64
		ok  bool
	}{{`-1.5e3`, -1500, true}, {`0.25`, 0.25, true}, {`1E+2`, 100, true}, {`1e400`, 0, false}, {`1.`, 0, false}, {`.5`, 0, false}, {`1e`, 0, false}, {`0x10`, 0, false}} {
		r := NewReader([]byte(c.doc))
		f, ok := r.Float()
		if ok = ok && r.End(); ok != c.ok || (ok && f != c.f) {
			t.Errorf("Float(%s) = %g %v", c.doc, f, ok)
		}
	}
}
