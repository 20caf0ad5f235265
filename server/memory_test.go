package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

func TestMemoryCRUD(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey

	r := ts.Do("POST", "/v1/memory", key, map[string]any{"name": "docs", "description": "product docs", "apiKey": "ignored"})
	mustStatus(t, r, 200)
	var created map[string]any
	r.JSON(t, &created)
	want := map[string]any{"name": "docs", "description": "product docs", "owner_login": "admin",
		"url": ts.URL + "/studio/memory/admin/docs", "chunk_size": 10000.0, "chunk_overlap": 2048.0,
		"embedding_model": "openai:text-embedding-3-large", "top_k": 10.0}
	for k, v := range want {
		if created[k] != v {
			t.Errorf("create %s = %v, want %v", k, created[k], v)
		}
	}
	// The url is the memory's studio page, which the server serves.
	if r := ts.Do("GET", strings.TrimPrefix(created["url"].(string), ts.URL), "", nil); r.Status != 200 ||
		!strings.Contains(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("memory url %v: %d %s", created["url"], r.Status, r.Header.Get("Content-Type"))
	}
	r = ts.Do("POST", "/v1/memory", key, map[string]any{"name": "docs"})
	if code, _ := errorOf(t, r); r.Status != 409 || code != "CONFLICT" {
		t.Fatalf("duplicate: %d %s", r.Status, r.Body)
	}
	createMemory(t, ts, key, map[string]any{"name": "kw", "embedding_model": "hearth:bm25", "chunk_size": 1000, "top_k": 5})

	r = ts.Do("GET", "/v1/memory", key, nil)
	mustStatus(t, r, 200)
	var list []map[string]any
	r.JSON(t, &list)
	if len(list) != 2 || list[0]["name"] != "docs" || list[0]["embeddingModel"] != "openai:text-embedding-3-large" ||
		list[0]["embedding_model"] != "openai:text-embedding-3-large" || list[1]["embeddingModel"] != "hearth:bm25" ||
		list[1]["chunk_overlap"] != 250.0 || list[1]["top_k"] != 5.0 {
		t.Fatalf("list: %s", r.Body)
	}

	// Beta lists: user key on the user route, org key on its org route.
	r = ts.Do("GET", "/beta/user/memorysets", key, nil)
	mustStatus(t, r, 200)
	var sets struct {
		MemorySets []map[string]any `json:"memorySets"`
	}
	r.JSON(t, &sets)
	if len(sets.MemorySets) != 2 || sets.MemorySets[0]["owner_login"] != "admin" {
		t.Fatalf("beta user list: %s", r.Body)
	}
	orgKey := ts.OrgWithKey("acme", "admin")
	createMemory(t, ts, orgKey, map[string]any{"name": "org-kb", "embedding_model": hashModel})
	r = ts.Do("GET", "/beta/org/acme/memorysets", orgKey, nil)
	mustStatus(t, r, 200)
	r.JSON(t, &sets)
	if len(sets.MemorySets) != 1 || sets.MemorySets[0]["name"] != "org-kb" || sets.MemorySets[0]["owner_login"] != "acme" {
		t.Fatalf("beta org list: %s", r.Body)
	}
	mustStatus(t, ts.Do("GET", "/beta/org/acme/memorysets", key, nil), 403)
	mustStatus(t, ts.Do("GET", "/beta/user/memorysets", orgKey, nil), 403)

	r = ts.Do("DELETE", "/v1/memory/docs", key, nil)
	mustStatus(t, r, 200)
	if string(r.Body) != "{\"success\":true}\n" {
		t.Fatalf("delete body %q", r.Body)
	}
	r = ts.Do("DELETE", "/v1/memory/docs", key, nil)
	if code, _ := errorOf(t, r); r.Status != 404 || code != "NOT_FOUND" {
		t.Fatalf("delete again: %d %s", r.Status, r.Body)
	}
	// A name can be used again after a delete.
	createMemory(t, ts, key, map[string]any{"name": "docs", "embedding_model": hashModel})
}

func TestMemoryValidation(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"missing name", map[string]any{}, "name"},
		{"name with slash", map[string]any{"name": "a/b"}, "name"},
		{"name with space", map[string]any{"name": "my memory"}, "name"},
		{"name too long", map[string]any{"name": strings.Repeat("a", 101)}, "name"},
		{"name as number", map[string]any{"name": 12}, "name"},
		{"description too long", map[string]any{"name": "m", "description": strings.Repeat("x", 2001)}, "description"},
		{"chunk_size too big", map[string]any{"name": "m", "chunk_size": 30001}, "chunk_size"},
		{"chunk_size zero", map[string]any{"name": "m", "chunk_size": 0}, "chunk_size"},
		{"chunk_size fractional", map[string]any{"name": "m", "chunk_size": 1000.5}, "chunk_size"},
		{"overlap equal to size", map[string]any{"name": "m", "chunk_size": 1000, "chunk_overlap": 1000}, "chunk_overlap"},
		{"overlap negative", map[string]any{"name": "m", "chunk_overlap": -1}, "chunk_overlap"},
		{"default overlap above size", map[string]any{"name": "m", "chunk_size": 4000, "chunk_overlap": 4000}, "chunk_overlap"},
		{"top_k zero", map[string]any{"name": "m", "top_k": 0}, "top_k"},
		{"top_k too big", map[string]any{"name": "m", "top_k": 101}, "top_k"},
		{"model without provider", map[string]any{"name": "m", "embedding_model": "text-embedding-3-large"}, "embedding_model"},
		{"chat model", map[string]any{"name": "m", "embedding_model": "openai:gpt-4o-mini"}, "embedding_model"},
		{"unknown provider", map[string]any{"name": "m", "embedding_model": "nosuch:model"}, "embedding_model"},
		{"unknown cohere model", map[string]any{"name": "m", "embedding_model": "cohere:embed-v9"}, "embedding_model"},
		{"provider without embeddings", map[string]any{"name": "m", "embedding_model": "anthropic:claude"}, "embedding_model"},
		{"unknown hearth model", map[string]any{"name": "m", "embedding_model": "hearth:echo"}, "embedding_model"},
	}
	for _, tc := range cases {
		r := ts.Do("POST", "/v1/memory", key, tc.body)
		code, msg := errorOf(t, r)
		if r.Status != 400 || code != "BAD_REQUEST" || !strings.HasPrefix(msg, tc.field) {
			t.Errorf("%s: %d %s, want 400 naming %s", tc.name, r.Status, r.Body, tc.field)
		}
	}
	for _, model := range []string{"openai:text-embedding-3-small", "cohere:embed-v4.0", "cohere:embed-multilingual-v3.0",
		"cohere:embed-multilingual-light-v3.0", "google:text-embedding-004", "ollama:nomic-embed-text", "hearth:bm25", hashModel} {
		name := strings.NewReplacer(":", "-", ".", "-").Replace(model)
		r := ts.Do("POST", "/v1/memory", key, map[string]any{"name": name, "embedding_model": model, "chunk_size": 1024, "chunk_overlap": 0, "top_k": 100})
		if r.Status != 200 {
			t.Errorf("model %s: %d %s", model, r.Status, r.Body)
		}
	}
	// A small chunk_size alone takes a quarter of it as overlap.
	r := ts.Do("POST", "/v1/memory", key, map[string]any{"name": "small", "chunk_size": 1000})
	mustStatus(t, r, 200)
	var m map[string]any
	r.JSON(t, &m)
	if m["chunk_overlap"] != 250.0 {
		t.Fatalf("derived overlap: %v", m["chunk_overlap"])
	}
	// A pipe key cannot manage memories.
	mustStatus(t, ts.Do("GET", "/v1/memory", "", nil), 401)
}

func TestMemoryOwnerIsolation(t *testing.T) {
	ts := servertest.Start(t)
	admin := servertest.AdminKey
	bob := ts.UserWithKey("bob")
	createMemory(t, ts, admin, map[string]any{"name": "private", "embedding_model": hashModel, "chunk_size": 500, "chunk_overlap": 50})
	upload(t, ts, admin, "private", "secret.md", "text/markdown", []byte("# Secret\n\nThe launch code is 0000."), nil)
	waitCompleted(t, ts, admin, "private", "secret.md")

	r := ts.Do("GET", "/v1/memory", bob, nil)
	if mustStatus(t, r, 200); string(r.Body) != "[]\n" {
		t.Fatalf("bob sees %s", r.Body)
	}
	for _, c := range []struct{ method, path string }{
		{"DELETE", "/v1/memory/private"},
		{"GET", "/v1/memory/private/documents"},
		{"DELETE", "/v1/memory/private/documents/secret.md"},
		{"GET", "/v1/memory/private/documents/secret.md/embeddings/retry"},
	} {
		if r := ts.Do(c.method, c.path, bob, nil); r.Status != 404 {
			t.Errorf("%s %s as bob: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	r = ts.Do("POST", "/v1/memory/retrieve", bob, map[string]any{"query": "launch code", "memory": []map[string]any{{"name": "private"}}})
	mustStatus(t, r, 404)
	r = ts.Do("POST", "/v1/memory/documents", bob, map[string]any{"memoryName": "private", "documentName": "x.txt"})
	mustStatus(t, r, 404)
	r = ts.Do("POST", "/beta/memory/retrieve", bob, map[string]any{"ownerLogin": "admin", "query": "launch code", "memory": []map[string]any{{"name": "private"}}})
	mustStatus(t, r, 403)
	r = ts.Do("POST", "/beta/memorysets/admin/private/retrieve", bob, map[string]any{"query": "launch code"})
	mustStatus(t, r, 403)
	// Bob's own memory of the same name is a different memory.
	createMemory(t, ts, bob, map[string]any{"name": "private", "embedding_model": hashModel})
	r = ts.Do("POST", "/beta/memorysets/bob/private/retrieve", bob, map[string]any{"query": "launch code"})
	if mustStatus(t, r, 200); string(r.Body) != "[]\n" {
		t.Fatalf("bob's own memory: %s", r.Body)
	}
	// The owner can.
	r = ts.Do("POST", "/beta/memorysets/admin/private/retrieve", admin, map[string]any{"query": "launch code"})
	mustStatus(t, r, 200)
	var out []chunkOut
	r.JSON(t, &out)
	if len(out) != 1 || out[0].Meta["docName"] != "secret.md" || !strings.Contains(out[0].Text, "launch code") {
		t.Fatalf("owner retrieve: %s", r.Body)
	}
}
