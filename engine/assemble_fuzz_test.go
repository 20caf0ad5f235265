package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzSubstituteText checks the {{variable}} rule on arbitrary text: no
// panic, no change without variables, a placeholder of a known name
// becomes its value, and the output is exactly refSubstitute's: each
// placeholder is replaced once by its value (values are never substituted
// again), so output grows by at most one value per placeholder. A name
// never spans lines or holds a brace (the rule's pattern is {{(.*?)}}).
func FuzzSubstituteText(f *testing.F) {
	f.Add("Hello {{ name }}!", "name", "Ada")
	f.Add("{{a}}{{a}}{{ a }}", "a", "{{a}}")
	f.Add("{{{{x}}}}", "x", "}}")
	f.Add("{{\x00}}", "\x00", "v")
	f.Add("{{a\n}} {{ a }}", "a", "<{{ a }}>")
	f.Fuzz(func(t *testing.T, text, name, value string) {
		if got := SubstituteText(text, nil); got != text {
			t.Fatalf("no variables changed %q to %q", text, got)
		}
		vars := map[string]string{strings.TrimSpace(name): value}
		out := SubstituteText(text, vars)
		want, placeholders := refSubstitute(text, vars)
		if out != want {
			t.Fatalf("SubstituteText(%q, %q) = %q, want %q", text, vars, out, want)
		}
		if limit := len(text) + placeholders*len(value); len(out) > limit {
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

// refSubstitute is the variable rule written out by hand: scanning left
// to right, a placeholder is "{{", then the shortest run up to "}}" that
// holds no newline; a known name with a non-empty value (spaces around
// the name ignored) is replaced and scanning goes on after the
// placeholder, so a value is never scanned. It also counts placeholders.
func refSubstitute(text string, vars map[string]string) (string, int) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(text); {
		open := strings.Index(text[i:], "{{")
		if open < 0 {
			b.WriteString(text[i:])
			break
		}
		open += i
		end := strings.Index(text[open+2:], "}}")
		if end < 0 {
			b.WriteString(text[i:])
			break
		}
		inner := text[open+2 : open+2+end]
		if strings.Contains(inner, "\n") {
			b.WriteString(text[i : open+1])
			i = open + 1
			continue
		}
		n++
		b.WriteString(text[i:open])
		if v := vars[strings.TrimSpace(inner)]; v != "" {
			b.WriteString(v)
		} else {
			b.WriteString(text[open : open+4+end])
		}
		i = open + 4 + end
	}
	return b.String(), n
}

// FuzzVariablesUnmarshal checks both wire forms of variables on arbitrary
// JSON: no panic, and what decodes survives a round trip unchanged (names,
// values and order).
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
		if err := json.Unmarshal(enc, &back); err != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("round trip of %s: %v, want %v (%v)", enc, back, v, err)
		}
	})
}
