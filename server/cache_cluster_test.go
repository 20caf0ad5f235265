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
