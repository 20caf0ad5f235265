package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// withUpstreams allow-lists upstream MCP servers for /mcp.
func withUpstreams(ups ...engine.MCPServer) servertest.Option {
	return servertest.WithConfig(func(c *server.Config) { c.MCPUpstreams = ups })
}

// TestMCPGateway: the allow-listed tools of an upstream MCP server (a real
// one on loopback) are listed as calc__<tool> and proxied; tools outside
// the allow list are neither listed nor callable; read-only keys get none;
// each call is in the run log under the upstream's name.
func TestMCPGateway(t *testing.T) {
	up := mcptest.Start(t, mcptest.Options{})
	ts := servertest.Start(t, withUpstreams(engine.MCPServer{Name: "calc", URL: up.URL, CustomHeaders: map[string]string{"X-Team": "blue"},
		ToolConfiguration: &engine.MCPToolConfig{AllowedTools: []string{"add", "fail"}}},
		engine.MCPServer{Name: "down", URL: "http://127.0.0.1:1/mcp"}))
	got := toolNames(t, ts, admin)
	if !slices.Equal(got, []string{"list_memories", "retrieve", "list_pipes", "run_pipe", "calc__add", "calc__fail"}) {
		t.Fatalf("tools %v", got)
	}
	res := callTool(t, ts, admin, "calc__add", map[string]any{"a": 2, "b": 3})
	if res.IsError || res.Content[0].Text != "5" {
		t.Fatalf("calc__add: %+v", res)
	}
	calls := up.Calls()
	if len(calls) != 1 || calls[0].Tool != "add" || calls[0].Args["a"] != float64(2) {
		t.Fatalf("upstream calls %+v", calls)
	}
	var sawHeader bool
	for _, h := range up.Headers() {
		sawHeader = sawHeader || h.Get("X-Team") == "blue"
		if h.Get("Authorization") != "" {
			t.Fatalf("the client's Hearth key reached the upstream: %v", h)
		}
	}
	if !sawHeader {
		t.Fatal("the upstream's custom header was not sent")
	}
	if res := callTool(t, ts, admin, "calc__fail", nil); !res.IsError || !strings.Contains(res.Content[0].Text, "boom") {
		t.Fatalf("calc__fail: %+v", res)
	}
	// A server that cannot be reached lists nothing; a call to it is a tool error.
	if res := callTool(t, ts, admin, "down__anything", nil); !res.IsError || !strings.Contains(res.Content[0].Text, "down") {
		t.Fatalf("down__anything: %+v", res)
	}
	if out := rpc(t, ts, admin, "tools/call", map[string]any{"name": "calc__echo", "arguments": map[string]any{"text": "x"}}); out.Error == nil || out.Error.Code != -32602 {
		t.Fatalf("a tool outside the allow list: %+v", out)
	}
	ro := scopedKey(t, ts, map[string]any{"read_only": true})
	if got := toolNames(t, ts, ro); slices.Contains(got, "calc__add") {
		t.Fatalf("read-only key offered upstream tools: %v", got)
	}
	if out := rpc(t, ts, ro, "tools/call", map[string]any{"name": "calc__add", "arguments": map[string]any{"a": 1, "b": 1}}); out.Error == nil || out.Error.Code != -32602 {
		t.Fatalf("read-only key called an upstream tool: %+v", out)
	}
	if n := len(up.Calls()); n != 2 {
		t.Fatalf("%d upstream calls, want 2", n)
	}
	waitRuns(t, ts, func(runs []runRec) bool {
		var ok, failed bool
		for _, r := range runs {
			if r.Kind == "mcp" && len(r.ToolCalls) == 1 && r.ToolCalls[0].Server == "calc" {
				ok = ok || r.ToolCalls[0].Name == "calc__add" && r.Status == "success"
				failed = failed || r.ToolCalls[0].Name == "calc__fail" && r.Status == "error"
			}
		}
		return ok && failed
	})
}

// TestMCPGatewayEgress: the egress policy applies to upstream MCP
// servers: outside HEARTH_OUTBOUND_HOSTS, the server's tools are not listed
// and a call is a tool error naming the host, with no connection made.
func TestMCPGatewayEgress(t *testing.T) {
	trap := newCountingListener(t)
	ts := servertest.Start(t, servertest.WithEgress("allowlist", "allowed.example"),
		withUpstreams(engine.MCPServer{Name: "calc", URL: trap.URL() + "/mcp"}))
	if got := toolNames(t, ts, admin); len(got) != 4 {
		t.Fatalf("tools %v", got)
	}
	res := callTool(t, ts, admin, "calc__add", map[string]any{"a": 1, "b": 2})
	if !res.IsError || !strings.Contains(res.Content[0].Text, hostOf(t, trap.URL())) || !strings.Contains(res.Content[0].Text, "HEARTH_OUTBOUND_HOSTS") {
		t.Fatalf("refused upstream: %+v", res)
	}
	if n := trap.count.Load(); n != 0 {
		t.Fatalf("%d connections reached the upstream outside the allow list", n)
	}
}

// TestMCPCluster: /mcp keeps no session, so a client that initialized on
// one node goes on on another: node B lists and runs the pipe created on
// A, and the run is in the log A reads.
func TestMCPCluster(t *testing.T) {
	nodes := servertest.StartCluster(t, 2)
	a, b := nodes[0], nodes[1]
	mustStatus(t, a.Do("POST", "/v1/pipes", admin, map[string]any{"name": "echo", "model": "hearth:echo"}), 200)
	if out := rpc(t, a, admin, "initialize", map[string]any{"protocolVersion": mcpVersion}); out.Error != nil {
		t.Fatalf("initialize on A: %+v", out.Error)
	}
	var pipes struct {
		Pipes []struct{ Name string } `json:"pipes"`
	}
	res := callTool(t, b, admin, "list_pipes", nil)
	if json.Unmarshal(res.StructuredContent, &pipes) != nil || len(pipes.Pipes) != 1 {
		t.Fatalf("list_pipes on B: %s", res.StructuredContent)
	}
	if res := callTool(t, b, admin, "run_pipe", map[string]any{"name": "echo", "message": "from B"}); res.IsError || res.Content[0].Text != "from B" {
		t.Fatalf("run_pipe on B: %+v", res)
	}
	b.RunLog.Flush()
	waitRuns(t, a, func(runs []runRec) bool {
		for _, r := range runs {
			if r.Endpoint == "/mcp" && r.Kind == "pipe" {
				return true
			}
		}
		return false
	})
}
