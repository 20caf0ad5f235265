package jsonfast

import (
	"encoding/json"
	"strings"
	"testing"
)

// syntaxCases are documents json.Valid accepts and refuses, for the
// syntax a Reader checks as it reads.
var syntaxCases = []string{
	`{"a":[1,-2.5e+3,true,false,null,"x\n\u00e9"],"b":{},"c":[]}`,
	` [ {"a": [1, "]"]} , -1.5e3 ,"x",null ] `,
	`{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{"a":1 "b":2}`, `{a:1}`, `{"a":1]`, `[1}`,
	`nul`, `nulx`, `tru`, `truex`, `fals`, `"abc`, `"a\qb"`, `"a\u12g4"`, `"a\u12"`,
	"\"a\x01b\"", "\"tab\tinside\"", `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `-01`, `1.5.5`,
	`"\ud800"`, "\"\xff\"", `[`, `{`, `{"a":`, `"\`, ``, ` `, `[[[[]]]]`,
}

// TestSkipMatchesValid checks that Skip to the end accepts exactly what
// json.Valid accepts.
func TestSkipMatchesValid(t *testing.T) {
	for _, doc := range syntaxCases {
		checkSkip(t, []byte(doc))
	}
	deep := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	if r := NewReader([]byte(deep)); r.Skip() {
		t.Errorf("Skip passed %d levels, want false past MaxDepth", MaxDepth+2)
	}
}

func checkSkip(t *testing.T, doc []byte) {
	t.Helper()
	r := NewReader(doc)
	got := r.Skip() && r.End()
	if got && !json.Valid(doc) {
		t.Errorf("%q: Skip accepted what json.Valid refuses", doc)
	}
	// A document with no more than MaxDepth brackets cannot nest deeper.
	if !got && json.Valid(doc) && strings.Count(string(doc), "[")+strings.Count(string(doc), "{") <= MaxDepth {
		t.Errorf("%q: Skip refused what json.Valid accepts", doc)
	}
}

// TestLiteralsChecked checks that Null and Bool refuse a literal that is
// cut short or misspelt.
func TestLiteralsChecked(t *testing.T) {
	for _, doc := range []string{`nul`, `nule`, `tru`, `trUe`, `fals`, `falsy`} {
		r := NewReader([]byte(doc))
		_, ok := r.Bool()
		if r.Null() || ok {
			t.Errorf("%s: read as a literal", doc)
		}
	}
}

// TestTextScratch checks that Text aliases the document without escapes
// and reuses the scratch buffer with them.
func TestTextScratch(t *testing.T) {
	doc := []byte(`["plain","a\"b","c\\d"]`)
	r := NewReader(doc)
	scratch := make([]byte, 0, 16)
	var got []string
	ok := r.Array(func() bool {
		b, ok := r.Text(&scratch)
		if len(b) > 0 && &b[0] != &doc[2] && &b[0] != &scratch[:1][0] {
			t.Errorf("%q neither aliases the document nor the scratch buffer", b)
		}
		got = append(got, string(b))
		return ok
	})
	if !ok || strings.Join(got, "|") != `plain|a"b|c\d` || cap(scratch) != 16 {
		t.Errorf("%v %q cap %d", ok, got, cap(scratch))
	}
}

func FuzzSkip(f *testing.F) {
	for _, doc := range syntaxCases {
		f.Add([]byte(doc))
	}
	f.Fuzz(checkSkip)
}
