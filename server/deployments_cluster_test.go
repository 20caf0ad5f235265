package server_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestDeploymentsClusterTPM: a deployment's tpm counts the tokens of
// every node: once node A's call used deployment a's 5 tokens, node B
// (whose own round-robin would pick a first) sends its call to b.
func TestDeploymentsClusterTPM(t *testing.T) {
	var aCalls, bCalls atomic.Int64
	a, b := deploymentHost(t, "from-a", 0, &aCalls), deploymentHost(t, "from-b", 0, &bCalls)
	nodes := servertest.StartCluster(t, 2, servertest.WithProviders(func(c *providers.Config) {
		c.Deployments = []providers.ModelDeployments{{Model: "local:llama", Servers: []providers.Deployment{
			{Name: "a", BaseURL: a, TPM: 5}, {Name: "b", BaseURL: b}}}}
	}))
	// The counters' windows are fixed minutes: start well inside one.
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 15*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
	window := time.Now().Truncate(time.Minute)
	call := func(n *servertest.Server) string {
		r := n.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": "local:llama", "messages": []any{user("hi")}})
		mustStatus(t, r, 200)
		return string(r.Body)
	}
	first, second := call(nodes[0]), call(nodes[1])
	if !time.Now().Truncate(time.Minute).Equal(window) {
		t.Skip("the two calls took longer than 15 s and straddled two counter windows")
	}
	if !strings.Contains(first, "from-a") || !strings.Contains(second, "from-b") || aCalls.Load() != 1 || bCalls.Load() != 1 {
		t.Fatalf("node A's call %s, node B's %s (a %d calls, b %d): B must skip a past its tpm", first, second, aCalls.Load(), bCalls.Load())
	}
}

// TestDeploymentsAPICluster: a deployment stored through node A's API is
// routed by node B once the change feed reaches it (B's own view of its
// state, in GET /v1/providers, shows it), and its removal on A stops B's
// calls to it.
func TestDeploymentsAPICluster(t *testing.T) {
	up := newKeyedHost(t, "from-box")
	nodes := servertest.StartCluster(t, 2)
	a, b := nodes[0], nodes[1]
	seen := func(n *servertest.Server) bool {
		for _, d := range n.App.Deps.Deployments() {
			if d.Name == "box" && d.Model == "gpu:llama" {
				return true
			}
		}
		return false
	}
	mustStatus(t, a.Do("POST", "/v1/deployments", servertest.AdminKey, map[string]any{"name": "box", "model": "gpu:llama", "base_url": up.URL, "api_key": "sk-cluster-key"}), 200)
	eventually(t, "node B routes the deployment stored on node A", func() bool { return seen(b) })
	if got := chatOnce(t, b, "gpu:llama"); !strings.Contains(got, "from-box") || up.calls.Load() != 1 {
		t.Fatalf("node B: %s (upstream calls %d)", got, up.calls.Load())
	}
	if up.lastAuth() != "Bearer sk-cluster-key" {
		t.Fatalf("node B sent %q, want the stored key", up.lastAuth())
	}
	r := b.Do("GET", "/v1/providers", servertest.AdminKey, nil)
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.Body), `"name":"box"`) {
		t.Fatalf("node B's providers view lacks the deployment: %s", r.Body)
	}
	mustStatus(t, a.Do("DELETE", "/v1/deployments/box", servertest.AdminKey, nil), 200)
	eventually(t, "node B drops the deployment deleted on node A", func() bool { return !seen(b) })
	r = b.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": "gpu:llama", "messages": []any{user("hi")}})
	mustStatus(t, r, 400)
	if up.calls.Load() != 1 {
		t.Fatalf("the deleted deployment got %d calls, want 1", up.calls.Load())
	}
}
