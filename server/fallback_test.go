package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestRetrievalKeywordFallback: when the query cannot be embedded (the
// provider is down, the key is gone), retrieval answers from the keyword
// index and says so with lb-retrieval-mode: keyword-fallback; it fails
// only when no memory has anything to find.
func TestRetrievalKeywordFallback(t *testing.T) {
	gate := newGate("")
	ts := servertest.Start(t, withEmbedder(gate))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "gate:x"})
	createMemory(t, ts, key, map[string]any{"name": "empty", "embedding_model": "gate:x"})
	upload(t, ts, key, "kb", "owls.md", "text/markdown", []byte("# Owls\n\nOwls hunt at night and fly silently."), nil)
	upload(t, ts, key, "kb", "bees.md", "text/markdown", []byte("# Bees\n\nBees dance to share where flowers are."), nil)
	waitCompleted(t, ts, key, "kb", "owls.md")
	waitCompleted(t, ts, key, "kb", "bees.md")
	body := map[string]any{"query": "when do owls hunt", "memory": []map[string]any{{"name": "kb"}}, "topK": 5}

	r := ts.Do("POST", "/v1/memory/retrieve", key, body)
	mustStatus(t, r, 200)
	if mode := r.Header.Get(server.HeaderRetrievalMode); mode != "" {
		t.Fatalf("a normal retrieval sets %s: %q", server.HeaderRetrievalMode, mode)
	}

	gate.setFail(engine.Errorf(engine.CodeUpstream, "embedding provider is down"))
	for _, route := range []struct {
		path string
		body any
	}{
		{"/v1/memory/retrieve", body},
		{"/beta/memory/retrieve", map[string]any{"ownerLogin": "admin", "query": "when do owls hunt", "memory": []map[string]any{{"name": "kb"}, {"name": "empty"}}}},
		{"/beta/memorysets/admin/kb/retrieve", map[string]any{"query": "when do owls hunt"}},
	} {
		r = ts.Do("POST", route.path, key, route.body)
		mustStatus(t, r, 200)
		if mode := r.Header.Get(server.HeaderRetrievalMode); mode != "keyword-fallback" {
			t.Fatalf("%s: header %v", route.path, r.Header)
		}
		var res []chunkOut
		r.JSON(t, &res)
		if len(res) != 1 || res[0].DocumentName != "owls.md" || res[0].Similarity != 1 {
			t.Fatalf("%s: keyword results %+v", route.path, res)
		}
	}
	// Nothing to fall back on: the embedding error itself.
	r = ts.Do("POST", "/v1/memory/retrieve", key, map[string]any{"query": "owls", "memory": []map[string]any{{"name": "empty"}}})
	if r.Status != 502 || !strings.Contains(string(r.Body), engine.CodeUpstream) || !strings.Contains(string(r.Body), "embedding provider is down") {
		t.Fatalf("empty memory: %d %s", r.Status, r.Body)
	}
}

// TestRAGSurvivesEmbedderOutage: a pipe run whose memory's embedder is
// down still runs, with the chunks the keyword index finds in its prompt.
func TestRAGSurvivesEmbedderOutage(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	gate := newGate("")
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"), withEmbedder(gate))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "gate:x", "top_k": 1})
	createMemory(t, ts, key, map[string]any{"name": "empty", "embedding_model": "gate:x"})
	upload(t, ts, key, "kb", "zebra.md", "text/markdown", []byte("# Zebras\n\nZebras have black and white stripes."), nil)
	waitCompleted(t, ts, key, "kb", "zebra.md")
	gate.setFail(engine.Errorf(engine.CodeUnavailable, "embedder unavailable"))

	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "helper", "model": "openai:gpt-4o-mini",
		"memory": []map[string]string{{"name": "kb"}}}), 200)
	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "helper", "stream": false,
		"messages": []map[string]string{{"role": "user", "content": "What stripes do zebras have?"}}})
	mustStatus(t, r, 200)
	msgs, _ := up.LastRequest().JSON()["messages"].([]any)
	system, _ := msgs[0].(map[string]any)["content"].(string)
	if !strings.Contains(system, "Zebras have black and white stripes.") {
		t.Fatalf("system prompt lacks the keyword match:\n%s", system)
	}
	// Even a memory with nothing to find does not fail the run.
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "helper", "stream": false, "memory": []map[string]string{{"name": "empty"}},
		"messages": []map[string]string{{"role": "user", "content": "anything?"}}})
	mustStatus(t, r, 200)
}

// TestRetrievalFallbackMissingKey: the provider key used at ingestion is
// removed; retrieval still answers, by keyword.
func TestRetrievalFallbackMissingKey(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), ""))
	key := servertest.AdminKey
	mustStatus(t, ts.Do("PUT", "/v1/keysets/openai", key, map[string]any{"key": "sk-owner"}), 200)
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "openai:text-embedding-3-small"})
	upload(t, ts, key, "kb", "moss.txt", "text/plain", []byte("Moss grows in damp forests."), nil)
	waitCompleted(t, ts, key, "kb", "moss.txt")
	mustStatus(t, ts.Do("DELETE", "/v1/keysets/openai", key, nil), 200)
	r := ts.Do("POST", "/v1/memory/retrieve", key, map[string]any{"query": "damp moss", "memory": []map[string]any{{"name": "kb"}}})
	mustStatus(t, r, 200)
	var res []chunkOut
	r.JSON(t, &res)
	if r.Header.Get(server.HeaderRetrievalMode) != "keyword-fallback" || len(res) != 1 || res[0].DocumentName != "moss.txt" {
		t.Fatalf("%v %+v", r.Header, res)
	}
}
