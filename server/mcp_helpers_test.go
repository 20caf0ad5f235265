package server_test

import (
	"encoding/json"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// mcpVersion is the protocol revision the MCP tests speak.
const mcpVersion = "2025-11-25"

// rpcOut is a JSON-RPC response of /mcp.
type rpcOut struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code      string   `json:"code"`
			Field     string   `json:"field"`
			Supported []string `json:"supported"`
		} `json:"data"`
	} `json:"error"`
}

// toolOut is a tools/call result.
type toolOut struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		URI  string `json:"uri"`
		Name string `json:"name"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// mcpPost posts one JSON-RPC message to /mcp with the headers a
// streamable HTTP client sends.
func mcpPost(ts *servertest.Server, key string, msg any, headers ...string) *servertest.Response {
	h := append([]string{"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", mcpVersion}, headers...)
	return ts.Do("POST", "/mcp", key, msg, h...)
}

// rpc sends a request and returns its decoded response (HTTP 200 expected).
func rpc(t *testing.T, ts *servertest.Server, key, method string, params any, headers ...string) rpcOut {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": 7, "method": method}
	if params != nil {
		msg["params"] = params
	}
	r := mcpPost(ts, key, msg, headers...)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: %d %s %s", method, r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	var out rpcOut
	r.JSON(t, &out)
	if out.JSONRPC != "2.0" || string(out.ID) != "7" {
		t.Fatalf("%s: not a response to id 7: %s", method, r.Body)
	}
	return out
}

// rpcResult sends a request that must succeed and decodes its result into v.
func rpcResult(t *testing.T, ts *servertest.Server, key, method string, params, v any) {
	t.Helper()
	out := rpc(t, ts, key, method, params)
	if out.Error != nil {
		t.Fatalf("%s: error %d %s", method, out.Error.Code, out.Error.Message)
	}
	if err := json.Unmarshal(out.Result, v); err != nil {
		t.Fatalf("%s: %v: %s", method, err, out.Result)
	}
}

// callTool calls a tool that exists and returns its result.
func callTool(t *testing.T, ts *servertest.Server, key, name string, args any) toolOut {
	t.Helper()
	var res toolOut
	rpcResult(t, ts, key, "tools/call", map[string]any{"name": name, "arguments": args}, &res)
	return res
}

// toolNames lists the tools of tools/list.
func toolNames(t *testing.T, ts *servertest.Server, key string) []string {
	t.Helper()
	var res struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	rpcResult(t, ts, key, "tools/list", nil, &res)
	var out []string
	for _, tl := range res.Tools {
		if tl.InputSchema["type"] != "object" {
			t.Fatalf("tool %s: inputSchema %v", tl.Name, tl.InputSchema)
		}
		out = append(out, tl.Name)
	}
	return out
}
