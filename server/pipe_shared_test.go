package server_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestRunsLeaveTheSharedPipeUnchanged: every run of a pipe shares the
// cached configuration Pipes.GetByID (pipe keys) and Pipes.Lookup (user
// keys) hand out, so no run may modify it. Runs of a pipe with few-shot
// messages, variables, tools, stop words, JSON mode and a stored thread,
// streamed and not, through both keys and a thread continued, must leave
// the cached pipe equal to the stored one.
func TestRunsLeaveTheSharedPipeUnchanged(t *testing.T) {
	f := fake.NewOpenAI()
	t.Cleanup(f.Close)
	f.SetDefault(fake.Reply{Text: "A fox."})
	ts := servertest.Start(t, servertest.WithProvider("openai", f.BaseURL(), "sk-test"))
	var pipe struct {
		APIKey string `json:"api_key"`
	}
	created := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "shared", "model": "openai:gpt-4o-mini", "store": true, "json": true,
		"stop": []string{"END"}, "temperature": 0.3,
		"messages": []any{map[string]any{"role": "system", "content": "Talk about {{topic}}."},
			map[string]any{"role": "user", "content": "An example?"}, map[string]any{"role": "assistant", "content": "An example."}},
		"variables": []any{map[string]any{"name": "topic", "value": "foxes"}},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "lookup",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{}}}}}})
	if created.Status != 200 {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	created.JSON(t, &pipe)
	ctx := context.Background()
	pipes := ts.App.Deps.Pipes
	byName, err := pipes.Lookup(ctx, "admin", "shared")
	if err != nil {
		t.Fatal(err)
	}
	cached, err := pipes.GetByID(ctx, byName.ID)
	if err != nil {
		t.Fatal(err)
	}
	var thread string
	for _, run := range []struct {
		key  string
		body map[string]any
	}{
		{pipe.APIKey, map[string]any{"messages": []any{user("Say something about JSON foxes.")}}},
		{pipe.APIKey, map[string]any{"messages": []any{user("More.")}, "variables": []any{map[string]any{"name": "topic", "value": "owls"}}}},
		{admin, map[string]any{"name": "shared", "messages": []any{user("And owls? Answer in JSON.")}, "stream": true}},
		{admin, map[string]any{"name": "shared", "messages": []any{user("Tools?")},
			"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "other"}}}}},
		{pipe.APIKey, map[string]any{"messages": []any{user("Continue in JSON.")}, "threadId": "continue"}},
	} {
		if run.body["threadId"] == "continue" {
			run.body["threadId"] = thread
		}
		r := ts.Do("POST", "/v1/pipes/run", run.key, run.body)
		if r.Status != 200 {
			t.Fatalf("run %v: %d %s", run.body, r.Status, r.Body)
		}
		if id := r.Header.Get("lb-thread-id"); id != "" {
			thread = id
		}
	}
	stored, err := pipes.Get(ctx, "admin", "shared")
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]any{"GetByID": cached, "Lookup": byName} {
		if !reflect.DeepEqual(p, stored) {
			t.Fatalf("after the runs the pipe %s shares is\n%+v\nthe stored one\n%+v", name, p, stored)
		}
	}
	if again, _ := pipes.GetByID(ctx, byName.ID); again != cached {
		t.Fatal("GetByID did not hand out the cached pipe")
	}
}
