package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// vecUpstream is a loopback OpenAI-compatible /embeddings endpoint whose
// vectors the test chooses (any other text gets a vector of its own); while
// down it answers 400, which the client does not retry.
type vecUpstream struct {
	*httptest.Server
	vecs  map[string][]float32
	down  atomic.Bool
	calls atomic.Int64
}

func newVecUpstream(t *testing.T, vecs map[string][]float32) *vecUpstream {
	u := &vecUpstream{vecs: vecs}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.calls.Add(1)
		var req struct {
			Model string          `json:"model"`
			Input json.RawMessage `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if u.down.Load() {
			w.WriteHeader(400)
			w.Write([]byte(`{"error":{"message":"model \"` + req.Model + `\" not found, try pulling it first"}}`))
			return
		}
		var inputs []string
		if json.Unmarshal(req.Input, &inputs) != nil {
			var one string
			json.Unmarshal(req.Input, &one)
			inputs = []string{one}
		}
		data := make([]map[string]any, len(inputs))
		for i, in := range inputs {
			v, ok := u.vecs[in]
			if !ok {
				v = []float32{0, 0, 1}
			}
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": len(inputs), "total_tokens": len(inputs)}})
	}))
	t.Cleanup(u.Close)
	return u
}

const (
	semQ        = "What is the capital of France?"
	semParaphr  = "Tell me the capital city of France"
	semNearMiss = "What is the capital of Spain?"
)

// startSemanticCache starts a server whose response cache is semantic,
// embedding with ollama:nomic-embed-text served by a vecUpstream.
func startSemanticCache(t *testing.T) (*servertest.Server, *fake.Server, *vecUpstream) {
	t.Helper()
	emb := newVecUpstream(t, map[string][]float32{
		semQ:        {1, 0, 0},
		semParaphr:  {0.99, 0.141, 0}, // cosine 0.990
		semNearMiss: {0.9, 0.436, 0},  // cosine 0.900
	})
	ts, up := startCache(t, servertest.WithProvider("ollama", emb.URL+"/v1", ""),
		withCache(engine.ResponseCacheConfig{Semantic: &engine.SemanticCacheConfig{
			Model: engine.ModelRef{Provider: "ollama", Model: "nomic-embed-text"}, Similarity: 0.95}}),
		servertest.WithProviders(func(c *providers.Config) { c.Retry.MaxAttempts = 1 }))
	return ts, up, emb
}

// TestCacheSemantic: on the chat and pipe surfaces a paraphrase above the
// threshold is a hit marked semantic with its similarity (no upstream call,
// run log cache hit), a near miss below it goes upstream, and a pipe's
// system prompt keeps its entries apart from plain chat calls.
func TestCacheSemantic(t *testing.T) {
	ts, up, _ := startSemanticCache(t)
	for _, s := range cacheSurfaces()[:2] {
		for _, stream := range []bool{false, true} {
			name := s.name + "/stream=" + strconv.FormatBool(stream)
			up.SetDefault(fake.Reply{Text: "Paris_(" + name + ")."})
			before := up.Count()
			if r := s.call(ts, servertest.AdminKey, semQ, stream, "LB-Cache", "on"); r.Status != 200 || r.Header.Get("lb-cache") != "miss" {
				t.Fatalf("%s first: %d %q %s", name, r.Status, r.Header.Get("lb-cache"), r.Body)
			}
			up.SetDefault(fake.Reply{Text: "A different answer."})
			r := s.call(ts, servertest.AdminKey, semParaphr, stream, "LB-Cache", "on")
			if r.Status != 200 || r.Header.Get("lb-cache") != "hit" || r.Header.Get("lb-cache-match") != "semantic" || up.Count() != before+1 {
				t.Fatalf("%s paraphrase: %d lb-cache=%q match=%q, %d upstream calls: %s", name, r.Status, r.Header.Get("lb-cache"),
					r.Header.Get("lb-cache-match"), up.Count()-before, r.Body)
			}
			if !strings.Contains(string(r.Body), "Paris_("+name+")") {
				t.Fatalf("%s: the semantic hit does not carry the cached answer: %s", name, r.Body)
			}
			if sim, err := strconv.ParseFloat(r.Header.Get("lb-cache-similarity"), 64); err != nil || sim < 0.95 || sim > 1 {
				t.Fatalf("%s: lb-cache-similarity %q", name, r.Header.Get("lb-cache-similarity"))
			}
			ts.RunLog.Flush()
			var page struct {
				Data []engine.RunRecord `json:"data"`
			}
			ts.Do("GET", "/v1/runs?limit=1", servertest.AdminKey, nil).JSON(t, &page)
			if len(page.Data) != 1 || page.Data[0].Cache != "hit" || page.Data[0].TotalTokens != 0 {
				t.Fatalf("%s: run record of the semantic hit %+v", name, page.Data)
			}
			r = s.call(ts, servertest.AdminKey, semNearMiss, stream, "LB-Cache", "on")
			if r.Status != 200 || r.Header.Get("lb-cache") != "miss" || r.Header.Get("lb-cache-match") != "" || up.Count() != before+2 {
				t.Fatalf("%s near miss: %d lb-cache=%q, %d upstream calls: %s", name, r.Status, r.Header.Get("lb-cache"), up.Count()-before, r.Body)
			}
		}
	}
	// An exact hit says so, without a similarity; browsers may read both headers.
	r := cacheSurfaces()[0].call(ts, servertest.AdminKey, semQ, false, "LB-Cache", "on", "Origin", "http://app.example")
	if exp := strings.ToLower(r.Header.Get("Access-Control-Expose-Headers")); !strings.Contains(exp, "lb-cache-match") || !strings.Contains(exp, "lb-cache-similarity") {
		t.Fatalf("the match headers are not exposed: %q", exp)
	}
	if r.Header.Get("lb-cache") != "hit" || r.Header.Get("lb-cache-match") != "exact" || r.Header.Get("lb-cache-similarity") != "" {
		t.Fatalf("exact hit: lb-cache=%q match=%q similarity=%q", r.Header.Get("lb-cache"), r.Header.Get("lb-cache-match"), r.Header.Get("lb-cache-similarity"))
	}
}

// TestCacheSemanticIsolation: another tenant's paraphrase, and a call with
// another model or other parameters, never match.
func TestCacheSemanticIsolation(t *testing.T) {
	ts, up, _ := startSemanticCache(t)
	chat := func(key string, body map[string]any) *servertest.Response {
		b := map[string]any{"model": cacheModel, "messages": []any{map[string]any{"role": "user", "content": semParaphr}}}
		for k, v := range body {
			b[k] = v
		}
		return ts.Do("POST", "/openai/v1/chat/completions", key, b, "LB-Cache", "on", "LB-LLM-Key", "sk-x")
	}
	up.SetDefault(fake.Reply{Text: "Admin's answer."})
	first := ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": cacheModel,
		"messages": []any{map[string]any{"role": "user", "content": semQ}}}, "LB-Cache", "on")
	if first.Header.Get("lb-cache") != "miss" {
		t.Fatalf("first: %q %s", first.Header.Get("lb-cache"), first.Body)
	}
	if r := chat(servertest.AdminKey, nil); r.Header.Get("lb-cache") != "hit" {
		t.Fatalf("admin's paraphrase: %q, want a hit", r.Header.Get("lb-cache"))
	}
	bobKey := ts.UserWithKey("bob")
	up.SetDefault(fake.Reply{Text: "Someone else's answer."})
	for name, c := range map[string]struct {
		key  string
		body map[string]any
	}{
		"another tenant": {bobKey, nil},
		"another model":  {servertest.AdminKey, map[string]any{"model": "openai:gpt-4o"}},
		"max_tokens":     {servertest.AdminKey, map[string]any{"max_tokens": 20}},
		"system prompt": {servertest.AdminKey, map[string]any{"messages": []any{map[string]any{"role": "system", "content": "Be terse."},
			map[string]any{"role": "user", "content": semParaphr}}}},
	} {
		before := up.Count()
		r := chat(c.key, c.body)
		if r.Status != 200 || r.Header.Get("lb-cache") != "miss" || up.Count() != before+1 || strings.Contains(string(r.Body), "Admin's") {
			t.Errorf("%s: %d lb-cache=%q, %d upstream calls: %s", name, r.Status, r.Header.Get("lb-cache"), up.Count()-before, r.Body)
		}
	}
}

// TestCacheSemanticEmbedderDown: when the embedder fails the call still
// succeeds as a miss answered upstream.
func TestCacheSemanticEmbedderDown(t *testing.T) {
	ts, up, emb := startSemanticCache(t)
	chat := cacheSurfaces()[0]
	chat.call(ts, servertest.AdminKey, semQ, false, "LB-Cache", "on")
	emb.down.Store(true)
	before, embeds := up.Count(), emb.calls.Load()
	r := chat.call(ts, servertest.AdminKey, semParaphr, false, "LB-Cache", "on")
	if r.Status != 200 || r.Header.Get("lb-cache") != "miss" || up.Count() != before+1 {
		t.Fatalf("embedder down: %d lb-cache=%q, %d upstream calls: %s", r.Status, r.Header.Get("lb-cache"), up.Count()-before, r.Body)
	}
	if emb.calls.Load() == embeds {
		t.Fatal("the embedder was not asked")
	}
	emb.Close()
	r = chat.call(ts, servertest.AdminKey, semParaphr+"?", true, "LB-Cache", "on")
	if r.Status != 200 || r.Header.Get("lb-cache") != "miss" {
		t.Fatalf("embedder gone, stream: %d lb-cache=%q: %s", r.Status, r.Header.Get("lb-cache"), r.Body)
	}
}
