package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// A pipe run with a memory attached puts the best chunks of the memory,
// retrieved for the last user message, in the system prompt's CONTEXT
// block with their document names (docs/pipes-and-threads.md#runs).
func TestRAGPipeRun(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 2000, "chunk_overlap": 0, "top_k": 1})
	upload(t, ts, key, "kb", "zebra.md", "text/markdown", []byte("# Zebras\n\nZebras have black and white stripes."), nil)
	upload(t, ts, key, "kb", "moss.txt", "text/plain", []byte("Moss grows in damp forests."), nil)
	waitCompleted(t, ts, key, "kb", "zebra.md")
	waitCompleted(t, ts, key, "kb", "moss.txt")

	r := ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "helper", "model": "openai:gpt-4o-mini", "memory": []map[string]string{{"name": "kb"}},
		"messages": []map[string]string{{"role": "system", "content": "You are terse."}}})
	mustStatus(t, r, 200)
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "helper", "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "What stripes do zebras have?"}}})
	mustStatus(t, r, 200)
	msgs, _ := up.LastRequest().JSON()["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("upstream request: %s", up.LastRequest().Body)
	}
	system, _ := msgs[0].(map[string]any)["content"].(string)
	for _, want := range []string{"You are terse.", "CONTEXT:", "Zebras have black and white stripes.", "Source: zebra.md"} {
		if !strings.Contains(system, want) {
			t.Fatalf("system prompt lacks %q:\n%s", want, system)
		}
	}
	if strings.Contains(system, "Moss") {
		t.Fatalf("top_k 1 must give one chunk:\n%s", system)
	}
	// A run naming a missing memory is refused.
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "helper", "memory": []map[string]string{{"name": "nope"}},
		"messages": []map[string]string{{"role": "user", "content": "hi"}}})
	if r.Status != 400 && r.Status != 404 {
		t.Fatalf("missing memory: %d %s", r.Status, r.Body)
	}
}
