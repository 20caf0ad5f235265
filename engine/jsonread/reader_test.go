package jsonread

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
		r := New([]byte(c.doc))
		seen := ""
		ok := r.Object(names, func(k int) bool {
			if seen != "" {
				seen += ","
			}
			seen += names[k]
			r.Skip()
			return true
		})
		if ok != c.ok || seen != c.seen || (ok && !r.End()) {
			t.Errorf("%s: ok %v seen %q", c.doc, ok, seen)
		}
	}
}

func TestStringMatchesEncodingJSON(t *testing.T) {
	for _, doc := range []string{`"plain"`, `"a\nb\t\"c\"\\\/"`, `"\u00e9\ud83d\ude00"`, `""`} {
		var want string
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		r := New([]byte(doc))
		if got, ok := r.String(); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", doc, got, ok, want)
		}
	}
	for _, doc := range []string{`"\ud800"`, `"\udc00x"`, "\"\xff\""} {
		r := New([]byte(doc))
		if _, ok := r.String(); ok {
			t.Errorf("%s: decoded, want false (encoding/json replaces it)", doc)
		}
	}
}

func TestRawAndSkip(t *testing.T) {
	r := New([]byte(` [ {"a": [1, "]"]} , -1.5e3 ,"x",null ] `))
	var raws []string
	ok := r.Array(func() bool { raws = append(raws, string(r.Raw())); return true })
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
	}{{`12`, 12, true}, {`-0`, 0, true}, {`1.0`, 0, false}, {`1e2`, 0, false}, {`12345678901234567890`, 0, false}} {
		r := New([]byte(c.doc))
		if n, ok := r.Int(); ok != c.ok || (ok && n != c.n) {
			t.Errorf("Int(%s) = %d %v", c.doc, n, ok)
		}
	}
	r := New([]byte(`1e400`))
	if _, ok := r.Float(); ok {
		t.Error("Float(1e400) decoded, want false (out of range)")
	}
}
