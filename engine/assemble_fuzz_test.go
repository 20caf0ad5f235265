package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzSubstituteText checks the {{variable}} rule on arbitrary text: no
// panic, no change without variables, a placeholder of a known name
// becomes its value, and output grows by at most one value per
// placeholder (values are never substituted again). A name never spans
// lines or holds a brace (the rule's pattern is {{(.*?)}}).
func FuzzSubstituteText(f *testing.F) {
	f.Add("Hello {{ name }}!", "name", "Ada")
	f.Add("{{a}}{{a}}{{ a }}", "a", "{{a}}")
	f.Add("{{{{x}}}}", "x", "}}")
	f.Add("{{\x00}}", "\x00", "v")
	f.Fuzz(func(t *testing.T, text, name, value string) {
		if got := SubstituteText(text, nil); got != text {
			t.Fatalf("no variables changed %q to %q", text, got)
		}
		vars := map[string]string{strings.TrimSpace(name): value}
		out := SubstituteText(text, vars)
		if limit := len(text) + strings.Count(text, "{{")*len(value); len(out) > limit {
			t.Fatalf("output of %d bytes, more than %d", len(out), limit)
		}
		clean := strings.TrimSpace(name)
		if value != "" && clean != "" && !strings.ContainsAny(name, "{}") && !strings.Contains(name, "\n") {
			if got := SubstituteText("{{"+name+"}}", vars); got != value {
				t.Fatalf("{{%s}} became %q, want %q", name, got, value)
			}
		}
	})
}

// FuzzVariablesUnmarshal checks both wire forms of variables on arbitrary
// JSON: no panic, and what decodes survives a round trip.
func FuzzVariablesUnmarshal(f *testing.F) {
	f.Add([]byte(`[{"name":"a","value":"1"}]`))
	f.Add([]byte(`{"a":"1","b":"2"}`))
	f.Add([]byte(`[{"name":"a","value":5}]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var v Variables
		if err := json.Unmarshal(b, &v); err != nil {
			return
		}
		enc, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal %v: %v", v, err)
		}
		var back Variables
		if err := json.Unmarshal(enc, &back); err != nil || len(back) != len(v) {
			t.Fatalf("round trip of %s: %v %v", enc, back, err)
		}
	})
}
