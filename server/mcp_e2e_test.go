package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
)

// TestMCPClientEndToEnd builds the real hearth binary and runs the
// official @modelcontextprotocol/sdk client (pinned in
// testdata/mcp-client/package-lock.json) against /mcp with `node --test`:
// every tool, a resource read, scope refusals and an upstream MCP
// server's tool proxied through Hearth.
//
// It needs node and testdata/mcp-client/node_modules (`make sdk-deps`).
// Without them it skips, except under CI (env CI set), where it fails.
func TestMCPClientEndToEnd(t *testing.T) {
	root, dir, node := nodeSuite(t, "MCP client", "mcp-client", "@modelcontextprotocol/sdk")
	bin := buildHearth(t, root)
	up := mcptest.Start(t, mcptest.Options{})
	openai := fake.NewOpenAI()
	defer openai.Close()
	ups, err := json.Marshal([]engine.MCPServer{{Name: "calc", URL: up.URL, ToolConfiguration: &engine.MCPToolConfig{AllowedTools: []string{"add", "fail"}}}})
	if err != nil {
		t.Fatal(err)
	}

	addr := freeAddr(t)
	const adminKey = "hth_user_mcp_e2e_admin_key_00001"
	serverURL := "http://" + addr
	var logs lockedBuffer
	stop := startHearth(t, bin, addr, append(hearthEnv(t, serverURL, adminKey, openai.BaseURL()),
		"HEARTH_MCP_UPSTREAMS="+string(ups), "HEARTH_OUTBOUND_ALLOW_PRIVATE=true"), &logs)
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := append(cleanEnv(), "HEARTH_URL="+serverURL, "HEARTH_KEY="+adminKey, "NO_COLOR=1")
	runNodeTests(t, ctx, node, dir, env, logs.String)

	var added bool
	for _, c := range up.Calls() {
		added = added || c.Tool == "add" && c.Args["a"] == float64(20) && c.Args["b"] == float64(22)
	}
	if !added {
		t.Fatalf("the upstream did not receive the proxied add call: %+v", up.Calls())
	}
}
