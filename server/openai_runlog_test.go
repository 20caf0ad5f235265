package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOpenAIChatRunLog: provider-model calls on /openai/v1/chat/completions
// are in the run log (GET /v1/runs, the studio's Usage): JSON and streamed
// answers with their tokens and the model that answered, and a failed
// upstream call as an error; a request naming an unknown provider is not
// a run.
func TestOpenAIChatRunLog(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	msgs := []map[string]any{{"role": "user", "content": "hello there"}}
	mustStatus(t, ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": "openai:gpt-4o-mini", "messages": msgs}), 200)
	mustStatus(t, ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey,
		map[string]any{"model": "hearth/echo", "messages": msgs, "stream": true, "stream_options": map[string]any{"include_usage": true}}), 200)
	up.Enqueue(fake.Reply{Status: 400, Message: "bad things"})
	if r := ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": "openai:gpt-4o-mini", "messages": msgs}); r.Status != 400 {
		t.Fatalf("refused upstream: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": "nosuch:model", "messages": msgs}); r.Status != 400 {
		t.Fatalf("unknown provider: %d %s", r.Status, r.Body)
	}
	ts.RunLog.Flush()
	var page struct {
		Data []engine.RunRecord `json:"data"`
	}
	ts.Do("GET", "/v1/runs", servertest.AdminKey, nil).JSON(t, &page)
	if len(page.Data) != 3 {
		t.Fatalf("%d run records, want 3: %+v", len(page.Data), page.Data)
	}
	failed, streamed, plain := page.Data[0], page.Data[1], page.Data[2]
	for _, r := range page.Data {
		if r.Endpoint != "/openai/v1/chat/completions" || r.Pipe != "" || r.Owner == "" {
			t.Fatalf("record %+v", r)
		}
	}
	if plain.Model != "openai:gpt-4o-mini" || plain.Status != engine.RunSuccess || plain.Stream || plain.TotalTokens == 0 || plain.CostUSD == nil {
		t.Fatalf("JSON call record %+v", plain)
	}
	if streamed.Model != "hearth:echo" || streamed.Status != engine.RunSuccess || !streamed.Stream || streamed.TotalTokens == 0 || streamed.FirstTokenMs == nil {
		t.Fatalf("streamed call record %+v", streamed)
	}
	if failed.Status != engine.RunError || failed.Error == "" || failed.Model != "openai:gpt-4o-mini" {
		t.Fatalf("failed call record %+v", failed)
	}
}
