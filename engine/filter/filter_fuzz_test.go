package filter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// FuzzParse checks that Parse never panics, that every error is a
// BAD_REQUEST FieldError on DefaultField, and that a parsed filter stays
// within MaxDepth and MaxNodes and matches exactly the documents its JSON
// selects: refEval reads the JSON by the rules in the package comment,
// on the test documents and on metas built from the filter's own fields
// and values (so that conditions match as well as fail). The seed corpus
// in testdata/fuzz/FuzzParse runs under plain go test.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`["company","Eq","Langbase"]`))
	f.Add([]byte(`["Eq",["author","AuthorA"]]`))
	f.Add([]byte(`["Or",[["a","In",["x","y"]],["b","NotIn",["z"]]]]`))
	f.Add([]byte(`["And",[["year","noteq",2024],["NOTIN",["draft",[true,"x"]]]]]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		flt, err := Parse(json.RawMessage(raw))
		if err != nil {
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Field != DefaultField || e.Message == "" {
				t.Fatalf("unexpected error type: %#v", err)
			}
			return
		}
		if depth, nodes := shape(flt); depth > MaxDepth || nodes > MaxNodes {
			t.Fatalf("parsed filter of depth %d and %d nodes, limits %d and %d", depth, nodes, MaxDepth, MaxNodes)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			v = nil // blank input: no filter
		}
		if a, ok := v.([]any); v == nil || ok && len(a) == 0 {
			if !flt.Empty() {
				t.Fatalf("%s parsed to a non-empty filter", raw)
			}
			v = nil
		}
		for _, meta := range testMetas(v) {
			want := v == nil || refEval(v, meta)
			if got := flt.Match(meta); got != want {
				t.Fatalf("%s on %v: Match = %v, want %v", raw, meta, got, want)
			}
		}
	})
}

// shape returns the nesting depth and node count of a parsed filter.
func shape(f Filter) (depth, nodes int) {
	nodes = 1
	for _, s := range f.subs {
		d, n := shape(s)
		depth, nodes = max(depth, d), nodes+n
	}
	return depth + 1, nodes
}

// refEval evaluates a filter Parse accepted straight from its JSON: a
// condition [field, op, value] or ["op", [field, value]] holds for Eq and
// In when the document has the field with one of the values, and for
// NotEq and NotIn otherwise (a missing field equals nothing); numbers
// and booleans stand for their JSON text; And and Or combine a list.
func refEval(v any, meta map[string]string) bool {
	a := v.([]any)
	if len(a) == 2 {
		op := strings.ToLower(a[0].(string))
		if op == "and" || op == "or" {
			subs := a[1].([]any)
			for _, s := range subs {
				if refEval(s, meta) != (op == "and") {
					return op == "or"
				}
			}
			return op == "and"
		}
		args := a[1].([]any)
		return refCondition(args[0].(string), op, args[1], meta)
	}
	return refCondition(a[0].(string), strings.ToLower(a[1].(string)), a[2], meta)
}

func refCondition(field, op string, value any, meta map[string]string) bool {
	values := refValues(value)
	got, ok := meta[field]
	in := ok && slices.Contains(values, got)
	if op == "noteq" || op == "notin" {
		return !in
	}
	return in
}

// refValues lists the meta strings a condition's value stands for.
func refValues(value any) []string {
	list, ok := value.([]any)
	if !ok {
		list = []any{value}
	}
	var out []string
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// testMetas returns the test documents, an empty meta, and metas that give
// the fields of the filter v (a filter Parse accepted) its values: each
// pair alone, the first value of every field together, and the last.
func testMetas(v any) []map[string]string {
	metas := []map[string]string{{}}
	for _, m := range docs {
		metas = append(metas, m)
	}
	var pairs [][2]string
	var walk func(v any)
	walk = func(v any) {
		a, ok := v.([]any)
		if !ok {
			return
		}
		switch {
		case len(a) == 3:
			for _, val := range refValues(a[2]) {
				pairs = append(pairs, [2]string{a[0].(string), val})
			}
		case len(a) == 2:
			if op := strings.ToLower(a[0].(string)); op == "and" || op == "or" {
				for _, s := range a[1].([]any) {
					walk(s)
				}
				return
			}
			args := a[1].([]any)
			for _, val := range refValues(args[1]) {
				pairs = append(pairs, [2]string{args[0].(string), val})
			}
		}
	}
	walk(v)
	first, last := map[string]string{}, map[string]string{}
	for i, p := range pairs {
		if i < 200 {
			metas = append(metas, map[string]string{p[0]: p[1]})
		}
		if _, ok := first[p[0]]; !ok {
			first[p[0]] = p[1]
		}
		last[p[0]] = p[1]
	}
	return append(metas, first, last)
}
