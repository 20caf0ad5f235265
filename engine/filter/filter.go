// Package filter parses and evaluates the meta filters of memory retrieval
// (https://langbase.com/docs/api-reference/memory/retrieve): a condition
// [field, op, value] with op one of Eq, NotEq,
// In, NotIn, or a compound ["And"|"Or", [filter, ...]], nested to any depth
// up to MaxDepth. The operator-first form ["Eq", [field, value]], which
// a proposed change to the Langbase SDK sends, is accepted too.
//
// Fields name the document meta keys set at upload. A condition on a key the
// document does not have is false for Eq and In, and true for NotEq and
// NotIn: a missing value equals nothing.
package filter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// MaxDepth bounds the nesting of compound filters, and MaxNodes the number of
// conditions and compounds in one filter.
const (
	MaxDepth = 16
	MaxNodes = 1000
)

// DefaultField is the request field named in errors by Parse.
const DefaultField = "memory.filters"

type op uint8

const (
	opAll op = iota // the zero Filter: no filter, matches everything
	opEq
	opNotEq
	opIn
	opNotIn
	opAnd
	opOr
)

// lookupOp finds an operator by name, ignoring case.
func lookupOp(name string) (op, bool) {
	switch strings.ToLower(name) {
	case "eq":
		return opEq, true
	case "noteq":
		return opNotEq, true
	case "in":
		return opIn, true
	case "notin":
		return opNotIn, true
	case "and":
		return opAnd, true
	case "or":
		return opOr, true
	}
	return opAll, false
}

// Filter is a parsed meta filter. The zero Filter matches every document.
type Filter struct {
	op     op
	field  string
	values []string // one value for Eq and NotEq
	subs   []Filter
}

// Empty reports whether f is the zero Filter, which matches everything.
func (f Filter) Empty() bool { return f.op == opAll }

// Match reports whether a document with the given meta passes the filter.
func (f Filter) Match(meta map[string]string) bool {
	switch f.op {
	case opEq, opIn:
		v, ok := meta[f.field]
		return ok && contains(f.values, v)
	case opNotEq, opNotIn:
		v, ok := meta[f.field]
		return !ok || !contains(f.values, v)
	case opAnd:
		for _, s := range f.subs {
			if !s.Match(meta) {
				return false
			}
		}
		return true
	case opOr:
		for _, s := range f.subs {
			if s.Match(meta) {
				return true
			}
		}
		return false
	}
	return true
}

func contains(values []string, v string) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}

// Parse parses a filter as sent in a retrieve request. Absent, null and []
// mean no filter. Errors are engine.FieldError values on DefaultField that
// say where in the filter the problem is and what was expected.
func Parse(raw json.RawMessage) (Filter, error) {
	return ParseField(raw, DefaultField)
}

// ParseField is Parse with the request field to name in errors, such as
// "memory[2].filters".
func ParseField(raw json.RawMessage, field string) (Filter, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Filter{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Filter{}, engine.FieldError(field, "is not valid JSON: %v", err)
	}
	if dec.More() {
		return Filter{}, engine.FieldError(field, "is not valid JSON: unexpected data after the filter")
	}
	if a, ok := v.([]any); ok && len(a) == 0 {
		return Filter{}, nil
	}
	p := parser{field: field}
	f, err := p.parse(v, "", 1)
	if err != nil {
		return Filter{}, err
	}
	return f, nil
}

type parser struct {
	field string
	nodes int
}

func (p *parser) fail(path, format string, args ...any) error {
	where := ""
	if path != "" {
		where = " at " + path
	}
	return engine.FieldError(p.field, "invalid filter%s: %s", where, fmt.Sprintf(format, args...))
}

const shapes = `expected [field, "Eq"|"NotEq"|"In"|"NotIn", value] or ["And"|"Or", [filter, ...]]`

func (p *parser) parse(v any, path string, depth int) (Filter, error) {
	if depth > MaxDepth {
		return Filter{}, p.fail(path, "filters nest deeper than %d levels", MaxDepth)
	}
	if p.nodes++; p.nodes > MaxNodes {
		return Filter{}, p.fail(path, "more than %d conditions", MaxNodes)
	}
	a, ok := v.([]any)
	if !ok {
		return Filter{}, p.fail(path, "got %s; %s", describe(v), shapes)
	}
	head, headIsString := "", false
	if len(a) > 0 {
		head, headIsString = a[0].(string)
	}
	switch {
	case len(a) == 2 && headIsString:
		o, known := lookupOp(head)
		if !known {
			return Filter{}, p.fail(path, "unknown operator %q; %s", head, shapes)
		}
		if o == opAnd || o == opOr {
			return p.compound(o, head, a[1], path, depth)
		}
		// Operator first: ["Eq", [field, value]].
		args, ok := a[1].([]any)
		if !ok || len(args) != 2 {
			return Filter{}, p.fail(path, "%s in operator-first form takes [field, value], got %s", head, describe(a[1]))
		}
		return p.condition(args[0], head, o, args[1], path)
	case len(a) == 3:
		name, ok := a[1].(string)
		if !ok {
			return Filter{}, p.fail(path, "operator must be a string, got %s", describe(a[1]))
		}
		o, known := lookupOp(name)
		if !known || o == opAnd || o == opOr {
			return Filter{}, p.fail(path, "unknown operator %q; conditions use Eq, NotEq, In or NotIn", name)
		}
		return p.condition(a[0], name, o, a[2], path)
	}
	return Filter{}, p.fail(path, "got an array of %d elements; %s", len(a), shapes)
}

func (p *parser) compound(o op, name string, v any, path string, depth int) (Filter, error) {
	list, ok := v.([]any)
	if !ok {
		return Filter{}, p.fail(path, "%s takes a list of filters, got %s", name, describe(v))
	}
	if len(list) == 0 {
		return Filter{}, p.fail(path, "%s needs at least one filter", name)
	}
	f := Filter{op: o, subs: make([]Filter, 0, len(list))}
	for i, x := range list {
		sub, err := p.parse(x, fmt.Sprintf("%s[1][%d]", path, i), depth+1)
		if err != nil {
			return Filter{}, err
		}
		f.subs = append(f.subs, sub)
	}
	return f, nil
}

func (p *parser) condition(fieldV any, name string, o op, v any, path string) (Filter, error) {
	field, ok := fieldV.(string)
	if !ok || field == "" {
		return Filter{}, p.fail(path, "field must be a non-empty string, got %s", describe(fieldV))
	}
	f := Filter{op: o, field: field}
	switch o {
	case opEq, opNotEq:
		s, ok := scalar(v)
		if !ok {
			return Filter{}, p.fail(path, "%s takes a string value, got %s (use In or NotIn for a list)", name, describe(v))
		}
		f.values = []string{s}
	case opIn, opNotIn:
		if s, ok := scalar(v); ok {
			f.values = []string{s}
			break
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return Filter{}, p.fail(path, "%s takes a non-empty list of strings, got %s", name, describe(v))
		}
		for i, x := range list {
			s, ok := scalar(x)
			if !ok {
				return Filter{}, p.fail(path, "%s list element %d must be a string, got %s", name, i, describe(x))
			}
			f.values = append(f.values, s)
		}
	}
	return f, nil
}

// scalar returns the meta string a JSON value stands for: strings as they
// are, numbers and booleans by their JSON text (meta values are strings, and
// a year written as 2024 should find "2024").
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return fmt.Sprint(x), true
	}
	return "", false
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprint(x)
	case []any:
		return fmt.Sprintf("an array of %d elements", len(x))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
