package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMCPProtocol: the transport and lifecycle rules of streamable HTTP
// as /mcp serves them: version negotiation, notifications, ping, JSON-RPC
// errors, header checks, no session, GET/DELETE 405 and auth refusals.
func TestMCPProtocol(t *testing.T) {
	ts := servertest.Start(t)
	type initRes struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      struct{ Name string }      `json:"serverInfo"`
	}
	for asked, want := range map[string]string{"2025-11-25": "2025-11-25", "2025-03-26": "2025-03-26", "2099-01-01": "2025-11-25"} {
		msg := map[string]any{"jsonrpc": "2.0", "id": 7, "method": "initialize",
			"params": map[string]any{"protocolVersion": asked, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}
		r := ts.Do("POST", "/mcp", admin, msg, "Accept", "application/json, text/event-stream")
		var out struct{ Result initRes }
		r.JSON(t, &out)
		if r.Status != 200 || out.Result.ProtocolVersion != want || out.Result.ServerInfo.Name != "hearth" ||
			out.Result.Capabilities["tools"] == nil || out.Result.Capabilities["resources"] == nil {
			t.Fatalf("initialize %s: %d %s", asked, r.Status, r.Body)
		}
		if r.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("a session id was issued: %v", r.Header)
		}
	}
	r := mcpPost(ts, admin, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if r.Status != 202 || len(r.Body) != 0 {
		t.Fatalf("notification: %d %s", r.Status, r.Body)
	}
	r = mcpPost(ts, admin, map[string]any{"jsonrpc": "2.0", "id": "s1", "result": map[string]any{}})
	if r.Status != 202 {
		t.Fatalf("response to the server: %d %s", r.Status, r.Body)
	}
	if out := rpc(t, ts, admin, "ping", nil); out.Error != nil || string(out.Result) != "{}" {
		t.Fatalf("ping: %+v %s", out.Error, out.Result)
	}
	if out := rpc(t, ts, admin, "prompts/list", nil); out.Error == nil || out.Error.Code != -32601 {
		t.Fatalf("unknown method: %+v", out)
	}
	if out := rpc(t, ts, admin, "tools/call", map[string]any{"name": "no_such_tool"}); out.Error == nil || out.Error.Code != -32602 || !strings.Contains(out.Error.Message, "no_such_tool") {
		t.Fatalf("unknown tool: %+v", out.Error)
	}
	if out := rpc(t, ts, admin, "tools/call", []int{1}); out.Error == nil || out.Error.Code != -32602 {
		t.Fatalf("params not an object: %+v", out.Error)
	}

	refusals := []struct {
		name    string
		body    string
		headers []string
		status  int
		code    int
	}{
		{"bad version header", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "1900-01-01"}, 400, -32600},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, -32600},
		{"not JSON", `{"jsonrpc":`, nil, 400, -32700},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 400, -32600},
		{"no method", `{"jsonrpc":"2.0","id":1}`, nil, 400, -32600},
		{"content type", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Content-Type", "text/plain"}, 415, -32600},
		{"accept", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", "text/html"}, 406, -32600},
	}
	for _, c := range refusals {
		r := mcpPost(ts, admin, c.body, c.headers...)
		var out rpcOut
		r.JSON(t, &out)
		if r.Status != c.status || out.Error == nil || out.Error.Code != c.code || string(out.ID) != "null" {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
		}
		if c.name == "bad version header" && !slices.Contains(out.Error.Data.Supported, mcpVersion) {
			t.Errorf("version refusal names no supported version: %s", r.Body)
		}
	}
	// The initialize request itself may carry any version header.
	if r := mcpPost(ts, admin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, "MCP-Protocol-Version", "1900-01-01"); r.Status != 200 {
		t.Errorf("initialize with an odd header: %d %s", r.Status, r.Body)
	}

	for _, m := range []string{"GET", "DELETE"} {
		r := ts.Do(m, "/mcp", admin, nil, "Accept", "text/event-stream")
		if r.Status != 405 || r.Header.Get("Allow") != "POST" {
			t.Errorf("%s: %d %v %s", m, r.Status, r.Header, r.Body)
		}
	}

	for _, key := range []string{"", "hth_user_nosuchkey000000000000000000"} {
		r := mcpPost(ts, key, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		var out rpcOut
		r.JSON(t, &out)
		if r.Status != 401 || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") || out.Error == nil || out.Error.Data.Code != "UNAUTHORIZED" {
			t.Errorf("key %q: %d %v %s", key, r.Status, r.Header, r.Body)
		}
	}

	var spec struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	ts.Do("GET", "/openapi.json", "", nil).JSON(t, &spec)
	if spec.Paths["/mcp"]["post"] == nil {
		t.Errorf("/openapi.json does not list POST /mcp")
	}
}

// seedMCP makes the memories of seedRetrieval and three pipes on
// hearth:echo (which answers with the last message): greet fills a
// variable, zoo retrieves from animals, other is a second pipe.
func seedMCP(t *testing.T, ts *servertest.Server) {
	t.Helper()
	seedRetrieval(t, ts, admin)
	for _, p := range []map[string]any{
		{"name": "greet", "model": "hearth:echo", "description": "Greets someone.", "messages": []any{user("Say hello to {{who}}")}, "variables": []any{map[string]any{"name": "who", "value": "nobody"}}},
		{"name": "zoo", "model": "hearth:echo", "memory": []any{map[string]any{"name": "animals"}}},
		{"name": "other", "model": "hearth:echo"},
	} {
		mustStatus(t, ts.Do("POST", "/v1/pipes", admin, p), 200)
	}
}

// TestMCPTools lists and calls each of Hearth's tools with an unscoped
// key, and finds each call in the run log.
func TestMCPTools(t *testing.T) {
	ts := servertest.Start(t)
	seedMCP(t, ts)
	if got := toolNames(t, ts, admin); !slices.Equal(got, []string{"list_memories", "retrieve", "list_pipes", "run_pipe"}) {
		t.Fatalf("tools %v", got)
	}

	var mems struct {
		Memories []struct {
			Name      string   `json:"name"`
			Documents []string `json:"documents"`
		} `json:"memories"`
	}
	res := callTool(t, ts, admin, "list_memories", nil)
	if res.IsError || json.Unmarshal(res.StructuredContent, &mems) != nil || len(mems.Memories) != 2 || len(mems.Memories[0].Documents)+len(mems.Memories[1].Documents) != 6 {
		t.Fatalf("list_memories: %+v %s", res, res.StructuredContent)
	}
	if !strings.Contains(res.Content[0].Text, `"baobab.txt"`) {
		t.Fatalf("list_memories text: %s", res.Content[0].Text)
	}

	type results struct {
		Results []struct {
			Text         string  `json:"text"`
			Similarity   float64 `json:"similarity"`
			DocumentName string  `json:"documentName"`
			MemoryName   string  `json:"memoryName"`
		} `json:"results"`
	}
	var rr results
	res = callTool(t, ts, admin, "retrieve", map[string]any{"query": "African savannah", "memories": []string{"animals"}, "topK": 2})
	if res.IsError || json.Unmarshal(res.StructuredContent, &rr) != nil || len(rr.Results) != 2 || rr.Results[0].MemoryName != "animals" {
		t.Fatalf("retrieve: %+v %s", res, res.StructuredContent)
	}
	var links []string
	for _, c := range res.Content {
		if c.Type == "resource_link" {
			links = append(links, c.URI)
		}
	}
	if len(links) != 2 || !strings.HasPrefix(links[0], "hearth://memory/animals/") {
		t.Fatalf("resource links %v", links)
	}
	// Every readable memory by default; a meta filter; a score floor.
	res = callTool(t, ts, admin, "retrieve", map[string]any{"query": "African savannah"})
	if json.Unmarshal(res.StructuredContent, &rr) != nil || len(rr.Results) != 6 {
		t.Fatalf("retrieve everything: %s", res.StructuredContent)
	}
	res = callTool(t, ts, admin, "retrieve", map[string]any{"query": "birds", "memories": []string{"animals"}, "filters": []any{"kind", "Eq", "bird"}})
	if json.Unmarshal(res.StructuredContent, &rr) != nil || len(rr.Results) != 2 {
		t.Fatalf("retrieve with filters: %s", res.StructuredContent)
	}
	for _, r := range rr.Results {
		if r.DocumentName != "penguin.txt" && r.DocumentName != "eagle.txt" {
			t.Fatalf("filter let %s through", r.DocumentName)
		}
	}
	res = callTool(t, ts, admin, "retrieve", map[string]any{"query": "African savannah", "min_score": 0.999})
	if json.Unmarshal(res.StructuredContent, &rr) != nil || len(rr.Results) == 0 || len(rr.Results) == 6 {
		t.Fatalf("retrieve with min_score: %s", res.StructuredContent)
	}
	for _, r := range rr.Results {
		if r.Similarity < 0.999 {
			t.Fatalf("min_score let %s (%v) through", r.DocumentName, r.Similarity)
		}
	}
	for name, args := range map[string]any{
		"no query":       map[string]any{"memories": []string{"animals"}},
		"unknown memory": map[string]any{"query": "q", "memories": []string{"nope"}},
		"bad topK":       map[string]any{"query": "q", "topK": 0},
		"bad filter":     map[string]any{"query": "q", "filters": []any{"kind", "Nope", "x"}},
		"wrong type":     map[string]any{"query": 5},
	} {
		if res := callTool(t, ts, admin, "retrieve", args); !res.IsError || len(res.Content) != 1 {
			t.Errorf("retrieve %s: %+v", name, res)
		}
	}

	var pipes struct {
		Pipes []struct {
			Name      string   `json:"name"`
			Variables []string `json:"variables"`
			Memories  []string `json:"memories"`
		} `json:"pipes"`
	}
	res = callTool(t, ts, admin, "list_pipes", nil)
	if json.Unmarshal(res.StructuredContent, &pipes) != nil || len(pipes.Pipes) != 3 {
		t.Fatalf("list_pipes: %s", res.StructuredContent)
	}
	for _, p := range pipes.Pipes {
		if p.Name == "greet" && !slices.Equal(p.Variables, []string{"who"}) || p.Name == "zoo" && !slices.Equal(p.Memories, []string{"animals"}) {
			t.Fatalf("list_pipes: %+v", p)
		}
	}

	var run struct {
		Completion string `json:"completion"`
		ThreadID   string `json:"thread_id"`
		Sources    []struct {
			Memory, Document string
		} `json:"sources"`
	}
	res = callTool(t, ts, admin, "run_pipe", map[string]any{"name": "greet", "variables": map[string]string{"who": "Ada"}})
	if res.IsError || res.Content[0].Text != "Say hello to Ada" || json.Unmarshal(res.StructuredContent, &run) != nil || run.ThreadID == "" {
		t.Fatalf("run_pipe greet: %+v %s", res, res.StructuredContent)
	}
	res = callTool(t, ts, admin, "run_pipe", map[string]any{"name": "zoo", "message": "Which cats live on the savannah?", "include_sources": true})
	if res.IsError || res.Content[0].Text != "Which cats live on the savannah?" || json.Unmarshal(res.StructuredContent, &run) != nil || len(run.Sources) == 0 || run.Sources[0].Memory != "animals" {
		t.Fatalf("run_pipe zoo: %+v %s", res, res.StructuredContent)
	}
	if res := callTool(t, ts, admin, "run_pipe", map[string]any{"message": "hi"}); !res.IsError || !strings.Contains(res.Content[0].Text, "name") {
		t.Fatalf("run_pipe without a name: %+v", res)
	}
	if res := callTool(t, ts, admin, "run_pipe", map[string]any{"name": "nope", "message": "hi"}); !res.IsError || !strings.Contains(res.Content[0].Text, "NOT_FOUND") {
		t.Fatalf("run_pipe unknown pipe: %+v", res)
	}

	waitRuns(t, ts, func(runs []runRec) bool {
		var pipeRuns, mcpCalls, mcpErrors int
		for _, r := range runs {
			if r.Endpoint != "/mcp" {
				continue
			}
			switch {
			case r.Kind == "pipe" && r.Status == "success":
				pipeRuns++
			case r.Kind == "mcp" && len(r.ToolCalls) == 1 && r.ToolCalls[0].Server == "hearth":
				mcpCalls++
				if r.Status == "error" && strings.HasPrefix(r.ToolCalls[0].Error, "BAD_REQUEST: ") {
					mcpErrors++
				}
			}
		}
		// 11 calls of the other tools, 2 run_pipe calls refused before the
		// engine accepted them (no name, an unknown pipe).
		return pipeRuns == 2 && mcpCalls == 13 && mcpErrors == 5
	})
}

// runRec is a run log record as GET /v1/runs answers it.
type runRec struct {
	Endpoint  string `json:"endpoint"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	Error     string `json:"error"`
	ToolCalls []struct {
		Name   string `json:"name"`
		Server string `json:"server"`
		Error  string `json:"error"`
	} `json:"tool_calls"`
}

// waitRuns polls the admin's run log until ok holds for it (records are
// written in the background).
func waitRuns(t *testing.T, ts *servertest.Server, ok func([]runRec) bool) {
	t.Helper()
	var page struct {
		Data []runRec `json:"data"`
	}
	for i := 0; ; i++ {
		ts.RunLog.Flush()
		ts.Do("GET", "/v1/runs?limit=100", admin, nil).JSON(t, &page)
		if ok(page.Data) {
			return
		}
		if i == 50 {
			t.Fatalf("run log: %+v", page.Data)
		}
	}
}
