package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestResponsesPipeModel: pipe:<name> runs the pipe on the Responses API
// as on chat completions: its system prompt reaches the model, its
// thread is named by lb-thread-id and continued with it (by a pipe key
// too), streamed runs work, and the response is not stored.
func TestResponsesPipeModel(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	key := servertest.AdminKey
	r := ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "helper", "model": "openai:gpt-4o-mini",
		"messages": []map[string]any{{"role": "system", "content": "You are the helper pipe."}}})
	mustStatus(t, r, 200)
	var created struct {
		APIKey string `json:"api_key"`
	}
	r.JSON(t, &created)

	up.Enqueue(fake.Reply{Text: "pipe answer"})
	res, r := createResponse(t, ts, key, map[string]any{"model": "pipe:helper", "input": "ping", "instructions": "Be brief.", "temperature": 0.5})
	thread := r.Header.Get(server.HeaderThreadID)
	sent := string(up.LastRequest().Body)
	if res.text() != "pipe answer" || res.Model != "pipe:helper" || res.Store || thread == "" ||
		!strings.Contains(sent, "You are the helper pipe.") || !strings.Contains(sent, "Be brief.") || !strings.Contains(sent, `"temperature":0.5`) {
		t.Fatalf("pipe run: %v %s\nupstream: %s", r.Header, r.Body, sent)
	}
	if g := ts.Do("GET", "/openai/v1/responses/"+res.ID, key, nil); g.Status != 404 {
		t.Fatalf("a pipe run's response is not stored: %d", g.Status)
	}

	// The pipe key continues the thread, streamed.
	up.Enqueue(fake.Reply{Text: "second answer"})
	evs := streamResponseEventsWith(t, ts, created.APIKey, map[string]any{"model": "pipe:helper", "input": "again"}, server.HeaderThreadRequest, thread)
	if last := evs[len(evs)-1]; last.Type != "response.completed" || last.Resp.text() != "second answer" {
		t.Fatalf("streamed pipe run: %v %s", eventTypes(evs), last.Raw)
	}
	r = ts.Do("GET", "/v1/threads/"+thread+"/messages", key, nil)
	mustStatus(t, r, 200)
	if n := strings.Count(string(r.Body), `"role":"user"`); n != 2 || !strings.Contains(string(r.Body), "second answer") {
		t.Fatalf("thread: %s", r.Body)
	}
	// A pipe key runs its own pipe only.
	if r := ts.Do("POST", "/openai/v1/responses", created.APIKey, map[string]any{"model": "openai:gpt-4o-mini", "input": "x"}); r.Status != 403 {
		t.Fatalf("pipe key on a provider model: %d %s", r.Status, r.Body)
	}
}
