package agent

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestInputMessageErrorsNameTheField: the field names of message errors,
// built only when an error needs them, are those of the request.
func TestInputMessageErrorsNameTheField(t *testing.T) {
	for _, c := range []struct{ raw, field string }{
		{`[{"role":"user","content":"a"},3]`, "messages[1]"},
		{`[{"content":"a"}]`, "messages[0].role"},
		{`[{"role":"bot","content":"a"}]`, "messages[0].role"},
		{`[{"role":7,"content":"a"}]`, "messages[0].role"},
		{`[{"role":"user","name":1,"content":"a"}]`, "messages[0].name"},
		{`[{"role":"tool","content":"a"}]`, "messages[0].tool_call_id"},
		{`[{"role":"user"}]`, "messages[0].content"},
		{`[{"role":"user","content":5}]`, "messages[0].content"},
		{`[{"role":"user","content":[{"type":"video"}]}]`, "messages[0].content[0].type"},
		{`[{"role":"user","content":"a","tool_calls":[]}]`, "messages[0].tool_calls"},
		{`[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f"}}]}]`, "messages[0].tool_calls[0].id"},
	} {
		_, err := completionMessages(json.RawMessage(c.raw))
		var e *engine.Error
		if !errors.As(err, &e) || e.Field != c.field {
			t.Errorf("%s: error %v, want one naming %s", c.raw, err, c.field)
		}
	}
	msgs, err := completionMessages(json.RawMessage(`[{"role":"developer","content":"be brief"},{"role":"user","content":"caf\u00e9","name":"bob"}]`))
	if err != nil || msgs[0].Role != "system" || msgs[0].Content.Text != "be brief" || msgs[1].Content.Text != "café" || msgs[1].Name != "bob" {
		t.Fatalf("messages %+v, %v", msgs, err)
	}
}

// FuzzMayBeDeveloper: a message mayBeDeveloper rules out is never one
// whose role encoding/json reads as "developer".
func FuzzMayBeDeveloper(f *testing.F) {
	for _, s := range []string{`{"role":"developer"}`, `{"ROLE":"developer"}`, `{"role":"develop\u0065r"}`, `{"role":"user"}`, `{"role":1,"role":"developer"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, m []byte) {
		if !mayBeDeveloper(m) && isDeveloper(m) {
			t.Fatalf("%q is a developer message that mayBeDeveloper ruled out", m)
		}
	})
}

// BenchmarkCompletionValidateAllocs: validating a two-message chat
// completion, 26 allocations on Go 1.26, nearly all encoding/json reading
// the array and each message into its raw fields; field names, roles and
// plain string contents cost nothing beyond the text (58 before).
func BenchmarkCompletionValidateAllocs(b *testing.B) {
	r := &CompletionRequest{Model: "openai:gpt-4o-mini",
		Messages: json.RawMessage(`[{"role":"system","content":"You are terse."},{"role":"user","content":"Say something about foxes."}]`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}
