package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOpenAIChatRunContent: a non-streamed provider-model call on
// /openai/v1/chat/completions stores no text until the owner opts in;
// then its messages and completion are kept, keys redacted (the provider
// key the caller sent included), and shown by GET /v1/runs/{id}.
func TestOpenAIChatRunContent(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	const callerKey = "caller-key-42"
	call := func(text string) {
		t.Helper()
		up.Enqueue(fake.Reply{Text: "the answer to " + text})
		mustStatus(t, ts.Do("POST", "/openai/v1/chat/completions", admin, map[string]any{"model": "openai:gpt-4o-mini",
			"messages": []map[string]any{{"role": "user", "content": text}}}, "LB-LLM-Key", callerKey), 200)
	}
	latest := func() engine.RunRecord {
		t.Helper()
		ts.RunLog.Flush()
		var page struct {
			Data []engine.RunRecord `json:"data"`
		}
		ts.Do("GET", "/v1/runs", admin, nil).JSON(t, &page)
		if len(page.Data) == 0 {
			t.Fatal("no run recorded")
		}
		return page.Data[0]
	}
	call("not kept")
	if r := latest(); r.ContentStored || getRun(t, ts, r.ID).Content != nil || contentKeys(t, ts) != 0 {
		t.Fatalf("content stored without opting in: %+v", r)
	}

	mustStatus(t, ts.Do("PUT", "/v1/runs/settings", admin, map[string]any{"log_content": true}), 200)
	call(secretText + " and " + callerKey)
	r := latest()
	d := getRun(t, ts, r.ID)
	if !r.ContentStored || d.Content == nil || r.Kind != engine.RunKindCompletion {
		t.Fatalf("owner opted in: record %+v content %+v, want the completion's content stored", r, d.Content)
	}
	if len(d.Content.Messages) != 1 || !strings.Contains(d.Content.Completion, "the answer to") {
		t.Fatalf("content %+v: want the user message and the completion", d.Content)
	}
	stored := d.Content.Messages[0].Content.String() + d.Content.Completion
	if strings.Contains(stored, "sk-proj-") || strings.Contains(stored, callerKey) || !strings.Contains(stored, "[REDACTED]") {
		t.Fatalf("stored content not redacted: %q", stored)
	}
}
