package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestClusterResponseCache: an answer cached on node A is a hit on node B
// (entries live in the shared store); after A refreshes the entry, B
// serves the new answer once the change feed drops B's hot copy.
func TestClusterResponseCache(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	nodes := servertest.StartCluster(t, 2, servertest.WithProvider("openai", up.BaseURL(), "sk-server"), withCache(engine.ResponseCacheConfig{}))
	a, b := nodes[0], nodes[1]
	waitFresh(t, b)
	chat := cacheSurfaces()[0]
	up.SetDefault(fake.Reply{Text: "First answer."})
	if r := chat.call(a, servertest.AdminKey, "q", false, "LB-Cache", "on"); r.Header.Get("lb-cache") != "miss" {
		t.Fatalf("node A: lb-cache=%q %s", r.Header.Get("lb-cache"), r.Body)
	}
	r := chat.call(b, servertest.AdminKey, "q", false, "LB-Cache", "on")
	if r.Header.Get("lb-cache") != "hit" || up.Count() != 1 || !strings.Contains(string(r.Body), "First answer.") {
		t.Fatalf("node B: lb-cache=%q, %d upstream calls: %s", r.Header.Get("lb-cache"), up.Count(), r.Body)
	}
	up.SetDefault(fake.Reply{Text: "Second answer."})
	if r := chat.call(a, servertest.AdminKey, "q", false, "LB-Cache", "refresh"); r.Header.Get("lb-cache") != "refresh" {
		t.Fatalf("node A refresh: lb-cache=%q", r.Header.Get("lb-cache"))
	}
	eventually(t, "refreshed answer served on B", func() bool {
		r := chat.call(b, servertest.AdminKey, "q", false, "LB-Cache", "on")
		return r.Header.Get("lb-cache") == "hit" && strings.Contains(string(r.Body), "Second answer.")
	})
	if up.Count() != 2 {
		t.Fatalf("%d upstream calls, want 2 (the miss and the refresh)", up.Count())
	}
}

// TestClusterSemanticCache: in semantic mode a paraphrase through node B
// hits the answer node A stored (the vectors live in the shared store, B's
// index replica catches up before it searches), and another tenant's
// paraphrase through B misses.
func TestClusterSemanticCache(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	emb := newVecUpstream(t, map[string][]float32{semQ: {1, 0, 0}, semParaphr: {0.99, 0.141, 0}})
	nodes := servertest.StartCluster(t, 2, servertest.WithProvider("openai", up.BaseURL(), "sk-server"),
		servertest.WithProvider("ollama", emb.URL+"/v1", ""),
		withCache(engine.ResponseCacheConfig{Semantic: &engine.SemanticCacheConfig{
			Model: engine.ModelRef{Provider: "ollama", Model: "nomic-embed-text"}, Similarity: 0.95}}))
	a, b := nodes[0], nodes[1]
	chat := cacheSurfaces()[0]
	up.SetDefault(fake.Reply{Text: "Paris, from node A."})
	if r := chat.call(a, servertest.AdminKey, semQ, false, "LB-Cache", "on"); r.Header.Get("lb-cache") != "miss" {
		t.Fatalf("node A: lb-cache=%q %s", r.Header.Get("lb-cache"), r.Body)
	}
	up.SetDefault(fake.Reply{Text: "Another answer."})
	r := chat.call(b, servertest.AdminKey, semParaphr, false, "LB-Cache", "on")
	if r.Header.Get("lb-cache") != "hit" || r.Header.Get("lb-cache-match") != "semantic" || up.Count() != 1 || !strings.Contains(string(r.Body), "Paris, from node A.") {
		t.Fatalf("node B paraphrase: lb-cache=%q match=%q, %d upstream calls: %s", r.Header.Get("lb-cache"), r.Header.Get("lb-cache-match"), up.Count(), r.Body)
	}
	other := b.UserWithKey("bob")
	if r := chat.call(b, other, semParaphr, false, "LB-Cache", "on"); r.Header.Get("lb-cache") != "miss" || strings.Contains(string(r.Body), "node A") {
		t.Fatalf("another tenant on node B: lb-cache=%q %s", r.Header.Get("lb-cache"), r.Body)
	}
}
