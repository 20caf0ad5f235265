package filter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

var docs = map[string]map[string]string{
	"lb-docs":    {"company": "Langbase", "category": "docs", "primitive": "Chunk", "year": "2024"},
	"lb-example": {"company": "Langbase", "category": "examples", "primitive": "Threads"},
	"lb-blog":    {"company": "Langbase", "category": "blog", "primitive": "Chunk"},
	"google":     {"company": "Google", "category": "docs", "author": "AuthorA"},
	"bare":       {},
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		filter string
		want   string // space-separated matching doc names, sorted as in docs order below
	}{
		{"absent", ``, "lb-docs lb-example lb-blog google bare"},
		{"null", `null`, "lb-docs lb-example lb-blog google bare"},
		{"empty array", `[]`, "lb-docs lb-example lb-blog google bare"},
		{"Eq", `["company","Eq","Langbase"]`, "lb-docs lb-example lb-blog"},
		{"NotEq, missing key passes", `["company","NotEq","Langbase"]`, "google bare"},
		{"In", `["company","In",["Langbase","Google"]]`, "lb-docs lb-example lb-blog google"},
		{"In single string", `["category","In","docs"]`, "lb-docs google"},
		{"NotIn", `["category","NotIn",["docs","blog"]]`, "lb-example bare"},
		{"Eq missing key", `["author","Eq","AuthorA"]`, "google"},
		{"number value", `["year","Eq",2024]`, "lb-docs"},
		{"bool value", `["year","Eq",true]`, ""},
		{"case-insensitive operator", `["company","eq","Google"]`, "google"},
		{"operator first", `["Eq",["author","AuthorA"]]`, "google"},
		{"operator first In", `["In",["primitive",["Threads","Nope"]]]`, "lb-example"},
		{"And", `["And",[["company","Eq","Langbase"],["category","Eq","docs"]]]`, "lb-docs"},
		{"Or", `["Or",[["category","Eq","blog"],["author","Eq","AuthorA"]]]`, "lb-blog google"},
		{"single child", `["And",[["company","Eq","Google"]]]`, "google"},
		{
			"spec example",
			`["And",[["company","Eq","Langbase"],["Or",[["category","Eq","docs"],["category","Eq","examples"]]],["primitive","In",["Chunk","Threads"]]]]`,
			"lb-docs lb-example",
		},
		{"mixed forms", `["Or",[["NotEq",["company","Langbase"]],["primitive","Eq","Threads"]]]`, "lb-example google bare"},
		{"field named like an operator", `["And","Eq","x"]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(json.RawMessage(tc.filter))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var got []string
			for _, name := range []string{"lb-docs", "lb-example", "lb-blog", "google", "bare"} {
				if f.Match(docs[name]) {
					got = append(got, name)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("matched %q, want %q", strings.Join(got, " "), tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat(`["And",[`, MaxDepth) + `["a","Eq","b"]` + strings.Repeat(`]]`, MaxDepth)
	okDeep := strings.Repeat(`["And",[`, MaxDepth-1) + `["a","Eq","b"]` + strings.Repeat(`]]`, MaxDepth-1)
	wide := `["Or",[` + strings.Repeat(`["a","Eq","b"],`, MaxNodes) + `["a","Eq","b"]]]`
	if _, err := Parse(json.RawMessage(okDeep)); err != nil {
		t.Fatalf("depth %d rejected: %v", MaxDepth, err)
	}
	for _, tc := range []struct {
		name, filter, want string
	}{
		{"invalid JSON", `["a","Eq"`, "not valid JSON"},
		{"trailing data", `["a","Eq","b"] 1`, "unexpected data"},
		{"object", `{"a":"b"}`, "got an object"},
		{"string", `"company"`, `got the string "company"`},
		{"number", `3`, "got the number 3"},
		{"one element", `["a"]`, "array of 1 elements"},
		{"four elements", `["a","Eq","b","c"]`, "array of 4 elements"},
		{"unknown operator", `["a","Like","b"]`, `unknown operator "Like"`},
		{"compound operator in condition", `["a","And","b"]`, `unknown operator "And"`},
		{"operator not a string", `["a",1,"b"]`, "operator must be a string"},
		{"empty field", `["","Eq","b"]`, "field must be a non-empty string"},
		{"field not a string", `[1,"Eq","b"]`, "field must be a non-empty string"},
		{"Eq with list", `["a","Eq",["b"]]`, "use In or NotIn"},
		{"Eq with null", `["a","Eq",null]`, "Eq takes a string value, got null"},
		{"In empty list", `["a","In",[]]`, "non-empty list"},
		{"In object", `["a","In",{}]`, "non-empty list"},
		{"In list with number list", `["a","NotIn",["b",["c"]]]`, "list element 1 must be a string"},
		{"And not a list", `["And",["a","Eq","b"]]`, "got the string \"a\""},
		{"And with object", `["And",{"x":1}]`, "And takes a list of filters, got an object"},
		{"Or empty", `["Or",[]]`, "Or needs at least one filter"},
		{"unknown head", `["Xor",[["a","Eq","b"]]]`, `unknown operator "Xor"`},
		{"operator first, wrong arity", `["Eq",["a"]]`, "takes [field, value]"},
		{"operator first, not a list", `["In","a"]`, "takes [field, value]"},
		{"bad nested child", `["And",[["a","Eq","b"],["Or",[["c","Near","d"]]]]]`, `at [1][1][1][0]: unknown operator "Near"`},
		{"too deep", deep, "deeper than 16"},
		{"too many nodes", wide, "more than 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(json.RawMessage(tc.filter))
			if err == nil {
				t.Fatal("no error")
			}
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Field != DefaultField {
				t.Fatalf("got %#v, want a BAD_REQUEST FieldError on %s", err, DefaultField)
			}
			if !strings.HasPrefix(e.Message, DefaultField+": ") || !strings.Contains(e.Message, tc.want) {
				t.Errorf("message %q does not contain %q", e.Message, tc.want)
			}
		})
	}
}

func TestParseFieldNamesTheField(t *testing.T) {
	_, err := ParseField(json.RawMessage(`["a"]`), "memory[2].filters")
	var e *engine.Error
	if !errors.As(err, &e) || e.Field != "memory[2].filters" || !strings.HasPrefix(e.Message, "memory[2].filters: ") {
		t.Fatalf("got %v", err)
	}
}

func TestZeroFilterMatches(t *testing.T) {
	var f Filter
	if !f.Empty() || !f.Match(nil) {
		t.Fatal("zero Filter must be empty and match everything")
	}
}
