package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestCacheUnderGuardrails: the guardrails check requests answered from
// the response cache as they check the others. An answer cached through a
// key without an output policy is a hit for a key that redacts, and that
// key gets it redacted; a key that refuses such answers is refused on the
// hit too, without the matched text; input redaction happens before the
// cache is asked, so requests differing only in redacted text share an
// entry.
func TestCacheUnderGuardrails(t *testing.T) {
	ts, up := startCache(t)
	newKey := func(name string, policy map[string]any) string {
		var k struct {
			Key string `json:"key"`
		}
		body := map[string]any{"name": name}
		if policy != nil {
			body["guard"] = policy
		}
		r := ts.Do("POST", "/v1/keys", servertest.AdminKey, body)
		mustStatus(t, r, 200)
		r.JSON(t, &k)
		return k.Key
	}
	redacts := newKey("redacts", map[string]any{"output": map[string]any{"pii": []string{"email"}, "pii_action": "redact"}})
	refuses := newKey("refuses", map[string]any{"output": map[string]any{"pii": []string{"email"}, "pii_action": "refuse"}})
	ask := func(key, q string) *servertest.Response {
		return ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": cacheModel,
			"messages": []any{map[string]any{"role": "user", "content": q}}}, "LB-Cache", "on")
	}
	up.Enqueue(fake.Reply{Text: "Write to help.desk@corp.example.com."})
	r := ask(servertest.AdminKey, "Who do I write to?")
	if r.Status != 200 || r.Header.Get("lb-cache") != "miss" || !strings.Contains(string(r.Body), "help.desk@corp.example.com") {
		t.Fatalf("first: %d %q %s", r.Status, r.Header.Get("lb-cache"), r.Body)
	}
	calls := up.Count()
	r = ask(redacts, "Who do I write to?")
	if r.Status != 200 || r.Header.Get("lb-cache") != "hit" || strings.Contains(string(r.Body), "help.desk@") || !strings.Contains(string(r.Body), "[EMAIL]") {
		t.Fatalf("redacting key on a hit: %d %q %s", r.Status, r.Header.Get("lb-cache"), r.Body)
	}
	r = ask(refuses, "Who do I write to?")
	if r.Status != 400 || strings.Contains(string(r.Body), "help.desk@") || !strings.Contains(string(r.Body), "pii.email") {
		t.Fatalf("refusing key on a hit: %d %s", r.Status, r.Body)
	}
	if up.Count() != calls {
		t.Fatalf("the hits called the upstream %d times", up.Count()-calls)
	}

	// Input redaction comes first: two questions that differ only in an
	// address the key's input policy redacts are one entry.
	inRedacts := newKey("in-redacts", map[string]any{"input": map[string]any{"pii": []string{"email"}, "pii_action": "redact"}})
	up.Enqueue(fake.Reply{Text: "Noted."})
	if r = ask(inRedacts, "Remember a@example.com please."); r.Status != 200 || r.Header.Get("lb-cache") != "miss" {
		t.Fatalf("input first: %d %q %s", r.Status, r.Header.Get("lb-cache"), r.Body)
	}
	if strings.Contains(string(up.LastRequest().Body), "a@example.com") {
		t.Fatalf("the upstream received the address: %s", up.LastRequest().Body)
	}
	if r = ask(inRedacts, "Remember b@example.org please."); r.Status != 200 || r.Header.Get("lb-cache") != "hit" {
		t.Fatalf("input second: %d %q %s", r.Status, r.Header.Get("lb-cache"), r.Body)
	}
}
