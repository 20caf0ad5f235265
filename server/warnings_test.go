package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// Creating a pipe or memory on a provider that no key is configured for
// succeeds with an lb-warning header saying how to give one; a server key,
// the owner's keyset, or a provider needing no key means no warning
// (docs/getting-started.md#defaults).
func TestCreateWarnsWithoutProviderKey(t *testing.T) {
	ts := servertest.Start(t, servertest.WithProvider("cohere", "http://127.0.0.1:1/v2", "co-server-key"))
	key := servertest.AdminKey
	warning := func(r *servertest.Response) string {
		t.Helper()
		mustStatus(t, r, 200)
		return r.Header.Get("lb-warning")
	}
	w := warning(ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "a", "model": "openai:gpt-4o-mini"}))
	if !strings.Contains(w, `provider "openai"`) || !strings.Contains(w, "HEARTH_OPENAI_API_KEY") || !strings.Contains(w, "LB-LLM-Key") {
		t.Fatalf("warning %q", w)
	}
	// Browser clients may read it.
	if exp := ts.Do("GET", "/health", "", nil, "Origin", "http://app.example"); !strings.Contains(strings.ToLower(exp.Header.Get("Access-Control-Expose-Headers")), "lb-warning") {
		t.Fatalf("lb-warning is not exposed: %v", exp.Header)
	}
	for _, model := range []string{"hearth:echo", "cohere:command-a-03-2025", "ollama:llama3.2"} {
		if w := warning(ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "p" + strings.NewReplacer(":", "-", ".", "-").Replace(model), "model": model})); w != "" {
			t.Fatalf("%s: unexpected warning %q", model, w)
		}
	}
	if w := warning(ts.Do("POST", "/v1/memory", key, map[string]any{"name": "m1", "embedding_model": "openai:text-embedding-3-small"})); !strings.Contains(w, `provider "openai"`) {
		t.Fatalf("memory warning %q", w)
	}
	if w := warning(ts.Do("POST", "/v1/memory", key, map[string]any{"name": "m2", "embedding_model": "hearth:bm25"})); w != "" {
		t.Fatalf("keyword-only memory warned %q", w)
	}
	// A key in the owner's keyset is enough.
	mustStatus(t, ts.Do("PUT", "/v1/keysets/openai", key, map[string]string{"key": "sk-owner-key-1234"}), 200)
	if w := warning(ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "b", "model": "openai:gpt-4o-mini"})); w != "" {
		t.Fatalf("warning with a keyset: %q", w)
	}
}

// Answers keep "<", ">" and "&" as they are, not \u003c escapes.
func TestAnswersDoNotEscapeHTML(t *testing.T) {
	ts := servertest.Start(t)
	r := ts.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{"name": "a<b>&c"})
	if r.Status != 400 || !strings.Contains(string(r.Body), `a<b>&c`) || strings.Contains(string(r.Body), `\u003c`) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	mustStatus(t, ts.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{"name": "p", "description": "x < y & z"}), 200)
	if r := ts.Do("GET", "/v1/pipes/p", servertest.AdminKey, nil); !strings.Contains(string(r.Body), `"x < y & z"`) {
		t.Fatalf("%s", r.Body)
	}
}
