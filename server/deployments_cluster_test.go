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
