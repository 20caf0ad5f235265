package server_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// mcpServer is one mcp_servers entry.
func mcpServer(name, url string, kv ...any) map[string]any {
	m := map[string]any{"name": name, "type": "url", "url": url}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// offeredTools returns the tool names of an upstream request.
func offeredTools(body map[string]any) []string {
	var names []string
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		names = append(names, t.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return names
}

// upstreamMessages returns the messages of an upstream request.
func upstreamMessages(body map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range body["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

// TestAgentMCPLoop runs the whole loop with hearth:echo, which calls the
// tool named in its input and then answers with the tool's result, against
// a real MCP server over both transports, plain and streamed.
func TestAgentMCPLoop(t *testing.T) {
	ts, _ := startAgent(t)
	for _, transport := range []string{mcptest.Streamable, mcptest.SSE} {
		for _, stream := range []bool{false, true} {
			name := transport
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				srv := mcptest.Start(t, mcptest.Options{Transport: transport, Path: "/" + transport})
				body := map[string]any{"model": "hearth:echo", "input": `call_tool:calc__add {"a":2,"b":3}`, "stream": stream,
					"mcp_servers": []any{mcpServer("calc", srv.URL)}}
				r := runAgent(ts, body)
				if r.Status != 200 {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				var text, finish string
				if stream {
					text, _, finish, _ = assemble(decodeStream(t, r.Body))
				} else {
					var out agentOut
					r.JSON(t, &out)
					if out.Output == nil {
						t.Fatalf("no output: %s", r.Body)
					}
					text, finish = *out.Output, out.Choices[0].FinishReason
				}
				if text != "tool result: 5" || finish != "stop" {
					t.Fatalf("answer %q finish %q", text, finish)
				}
				calls := srv.Calls()
				if len(calls) != 1 || calls[0].Tool != "add" || calls[0].Args["a"] != 2.0 || calls[0].Args["b"] != 3.0 {
					t.Fatalf("MCP calls = %+v", calls)
				}
			})
		}
	}
}

func TestAgentMCPFeedsResultsBack(t *testing.T) {
	ts, up := startAgent(t)
	srv := mcptest.Start(t, mcptest.Options{})
	// Step 1 calls two MCP tools at once (one fails), step 2 answers.
	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{
		{ID: "call_a", Name: "calc__add", Arguments: `{"a":1,"b":2}`},
		{ID: "call_f", Name: "calc__fail", Arguments: `{}`},
	}}, fake.Reply{Text: "1+2 is 3; the other tool failed."})
	r := runAgent(ts, map[string]any{"model": "openai:gpt-5.4", "input": "go", "reasoning_effort": "high",
		"mcp_servers": []any{mcpServer("calc", srv.URL)}})
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var out agentOut
	r.JSON(t, &out)
	if out.Output == nil || *out.Output != "1+2 is 3; the other tool failed." {
		t.Fatalf("output: %s", r.Body)
	}
	if out.Usage.TotalTokens != 34 {
		t.Fatalf("usage is not summed over the steps: %+v", out.Usage)
	}
	reqs := up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d upstream requests", len(reqs))
	}
	first := reqs[0].JSON()
	tools := offeredTools(first)
	if len(tools) != 6 || !contains(tools, "calc__add") || !contains(tools, "calc__get_weather") {
		t.Fatalf("offered tools = %v", tools)
	}
	// MCP tools count as tools for the reasoning_effort rule.
	if first["reasoning_effort"] != "none" {
		t.Fatalf("reasoning_effort = %v", first["reasoning_effort"])
	}
	msgs := upstreamMessages(reqs[1].JSON())
	if len(msgs) != 4 {
		t.Fatalf("step 2 messages = %v", msgs)
	}
	if msgs[1]["role"] != "assistant" || len(msgs[1]["tool_calls"].([]any)) != 2 {
		t.Fatalf("assistant tool calls not fed back: %v", msgs[1])
	}
	if msgs[2]["role"] != "tool" || msgs[2]["tool_call_id"] != "call_a" || msgs[2]["content"] != "3" {
		t.Fatalf("add result = %v", msgs[2])
	}
	if c, _ := msgs[3]["content"].(string); msgs[3]["tool_call_id"] != "call_f" || !strings.HasPrefix(c, "Error") || !strings.Contains(c, "boom") {
		t.Fatalf("a failing tool reaches the model as a tool result: %v", msgs[3])
	}
}

func TestAgentMCPToolConfiguration(t *testing.T) {
	ts, up := startAgent(t)
	srv := mcptest.Start(t, mcptest.Options{})
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	cases := []struct {
		name    string
		servers []any
		tools   []any
		want    []string
	}{
		{"allowed_tools filters", []any{mcpServer("calc", srv.URL, "tool_configuration", map[string]any{"allowed_tools": []string{"add", "get.weather", "missing"}})},
			nil, []string{"calc__add", "calc__get_weather"}},
		{"empty allowed_tools offers none", []any{mcpServer("calc", srv.URL, "tool_configuration", map[string]any{"allowed_tools": []string{}})},
			nil, nil},
		{"enabled false skips the server (even a down one)", []any{mcpServer("off", downURL, "tool_configuration", map[string]any{"enabled": false}),
			mcpServer("calc", srv.URL, "tool_configuration", map[string]any{"enabled": true, "allowed_tools": []string{"echo"}})},
			nil, []string{"calc__echo"}},
		{"names never collide with caller tools", []any{mcpServer("calc", srv.URL, "tool_configuration", map[string]any{"allowed_tools": []string{"add"}})},
			[]any{map[string]any{"type": "function", "function": map[string]any{"name": "calc__add"}}}, []string{"calc__add", "calc__add_*"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "mcp_servers": tc.servers}
			if tc.tools != nil {
				body["tools"] = tc.tools
			}
			r := runAgent(ts, body)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			got := offeredTools(upstreamBody(t, up, -1))
			if len(got) != len(tc.want) {
				t.Fatalf("offered %v, want %v", got, tc.want)
			}
			for i, w := range tc.want {
				if ok := got[i] == w || (strings.HasSuffix(w, "*") && strings.HasPrefix(got[i], strings.TrimSuffix(w, "*")) && len(got[i]) == len(w)-1+8); !ok {
					t.Fatalf("offered %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestAgentMCPStopsAtCallerTools(t *testing.T) {
	ts, up := startAgent(t)
	srv := mcptest.Start(t, mcptest.Options{})
	for _, stream := range []bool{false, true} {
		// A step that calls a caller-defined tool ends the loop; MCP calls of the same step are not run.
		up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{
			{ID: "call_m", Name: "calc__add", Arguments: `{"a":1,"b":1}`},
			{ID: "call_c", Name: "lookup", Arguments: `{"q":"x"}`},
		}})
		r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stream": stream,
			"tools":       []any{map[string]any{"type": "function", "function": map[string]any{"name": "lookup"}}},
			"mcp_servers": []any{mcpServer("calc", srv.URL)}})
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		if stream {
			_, calls, finish, _ := assemble(decodeStream(t, r.Body))
			if finish != "tool_calls" || len(calls) != 1 || calls[0].ID != "call_c" || calls[0].Function.Name != "lookup" {
				t.Fatalf("calls %+v finish %s", calls, finish)
			}
		} else {
			var out agentOut
			r.JSON(t, &out)
			tc := out.Choices[0].Message.ToolCalls
			if out.Output != nil || len(tc) != 1 || tc[0].Function.Name != "lookup" || out.Choices[0].FinishReason != "tool_calls" {
				t.Fatalf("response %s", r.Body)
			}
		}
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Fatalf("MCP tools ran: %+v", calls)
	}
}

func TestAgentMCPStepLimit(t *testing.T) {
	ts, up := startAgent(t)
	srv := mcptest.Start(t, mcptest.Options{})
	up.SetDefault(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "calc__echo", Arguments: `{"text":"again"}`}}})
	body := map[string]any{"model": "openai:gpt-4o-mini", "input": "loop", "mcp_servers": []any{mcpServer("calc", srv.URL)},
		"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "calc__echo"}}}
	r := runAgent(ts, body)
	if r.Status != 502 || !strings.Contains(errorMessage(t, r), "10 model steps") {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	reqs := up.Requests()
	if len(reqs) != 10 || len(srv.Calls()) != 9 {
		t.Fatalf("%d model calls, %d tool calls", len(reqs), len(srv.Calls()))
	}
	// A forced tool is only forced at the first step.
	if tc := reqs[0].JSON()["tool_choice"]; tc == "auto" {
		t.Fatalf("first tool_choice = %v", tc)
	}
	if tc := reqs[1].JSON()["tool_choice"]; tc != "auto" {
		t.Fatalf("later tool_choice = %v", tc)
	}
	// Streamed: the limit arrives as an error event after the stream started.
	up.Reset()
	up.SetDefault(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "calc__echo", Arguments: `{"text":"again"}`}}})
	body["stream"] = true
	r = runAgent(ts, body)
	events, err := parseSSE(r.Body)
	if err != nil || r.Status != 200 || len(events) == 0 {
		t.Fatalf("%d %v %s", r.Status, err, r.Body)
	}
	last := events[len(events)-1].Data
	if !strings.Contains(last, `"error"`) || !strings.Contains(last, "10 model steps") {
		t.Fatalf("last event %s", last)
	}
}

func TestAgentMCPServerErrors(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	t.Run("down", func(t *testing.T) {
		ts, up := startAgent(t)
		srv := mcptest.Start(t, mcptest.Options{})
		r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi",
			"mcp_servers": []any{mcpServer("calc", srv.URL), mcpServer("weather-tools", downURL)}})
		if r.Status != 502 || !strings.Contains(errorMessage(t, r), `"weather-tools"`) || !strings.Contains(errorMessage(t, r), "unreachable") {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		if up.Count() != 0 {
			t.Fatal("the model was called")
		}
	})
	t.Run("refused by the outbound policy", func(t *testing.T) {
		ts, up := startAgent(t, servertest.WithOutbound(netguard.Policy{}))
		srv := mcptest.Start(t, mcptest.Options{})
		r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "mcp_servers": []any{mcpServer("local", srv.URL)}})
		if r.Status != 400 || !strings.Contains(errorMessage(t, r), `"local"`) || !strings.Contains(errorMessage(t, r), "outbound address policy") {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		if len(srv.Headers()) != 0 || up.Count() != 0 {
			t.Fatal("the refused server or the model was reached")
		}
	})
}

func TestAgentMCPHeadersAndTokenNeverLogged(t *testing.T) {
	const token = "mcp-token-s3cr3t-value"
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts, up := startAgent(t, servertest.WithConfig(func(c *server.Config) { c.Logger = logger }))
	srv := mcptest.Start(t, mcptest.Options{Transport: mcptest.SSE})
	deny := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "nope", 401) }))
	defer deny.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	servers := func(url string) []any {
		return []any{mcpServer("calc", url, "authorization_token", token, "custom_headers", map[string]string{"X-Tenant": "acme"})}
	}

	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "calc__add", Arguments: `{"a":1,"b":1}`}}})
	r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "mcp_servers": servers(srv.URL)})
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	hs := srv.Headers()
	if len(hs) < 3 {
		t.Fatalf("%d MCP requests", len(hs))
	}
	for _, h := range hs {
		if h.Get("Authorization") != "Bearer "+token || h.Get("X-Tenant") != "acme" {
			t.Fatalf("MCP request headers = %v", h)
		}
	}
	for _, req := range up.Requests() {
		if strings.Contains(string(req.Body), token) || strings.Contains(req.Header.Get("Authorization"), token) {
			t.Fatal("the MCP token reached the model provider")
		}
	}
	r401 := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "mcp_servers": servers(deny.URL + "/mcp")})
	if r401.Status != 400 || !strings.Contains(errorMessage(t, r401), "HTTP 401") {
		t.Fatalf("401: %d %s", r401.Status, r401.Body)
	}
	rDown := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stream": true, "mcp_servers": servers(downURL)})
	if rDown.Status != 502 {
		t.Fatalf("down: %d %s", rDown.Status, rDown.Body)
	}
	for _, resp := range []*servertest.Response{r, r401, rDown} {
		if bytes.Contains(resp.Body, []byte(token)) {
			t.Fatalf("response leaks the token: %s", resp.Body)
		}
	}
	if logs.Len() == 0 || !strings.Contains(logs.String(), "/v1/agent/run") {
		t.Fatalf("no logs captured: %q", logs.String())
	}
	if strings.Contains(logs.String(), token) || strings.Contains(logs.String(), "acme") {
		t.Fatalf("logs leak a secret:\n%s", logs.String())
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// syncBuffer is a bytes.Buffer safe for concurrent log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
func (s *syncBuffer) Len() int       { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Len() }
