package server_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// startAgent starts a server whose openai provider is a fake upstream.
func startAgent(t *testing.T, opts ...servertest.Option) (*servertest.Server, *fake.Server) {
	t.Helper()
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, append([]servertest.Option{servertest.WithProvider("openai", up.BaseURL(), "")}, opts...)...)
	return ts, up
}

// runAgent posts body to /v1/agent/run as the admin with a provider key header.
func runAgent(ts *servertest.Server, body any, headers ...string) *servertest.Response {
	return ts.Do("POST", "/v1/agent/run", servertest.AdminKey, body, append([]string{"LB-LLM-Key", "sk-test"}, headers...)...)
}

// errorMessage returns the message of either error body shape.
func errorMessage(t *testing.T, r *servertest.Response) string {
	t.Helper()
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	r.JSON(t, &v)
	var s string
	if json.Unmarshal(v.Error, &s) == nil {
		return s
	}
	var d struct {
		Message string `json:"message"`
	}
	json.Unmarshal(v.Error, &d)
	return d.Message
}

// upstreamBody is the JSON body of the fake's i-th request (-1: last).
func upstreamBody(t *testing.T, up *fake.Server, i int) map[string]any {
	t.Helper()
	reqs := up.Requests()
	if len(reqs) == 0 {
		t.Fatal("upstream got no request")
	}
	if i < 0 {
		i = len(reqs) + i
	}
	return reqs[i].JSON()
}

type agentOut struct {
	Output            *string `json:"output"`
	ID                string  `json:"id"`
	Object            string  `json:"object"`
	Created           int64   `json:"created"`
	Model             string  `json:"model"`
	SystemFingerprint *string `json:"system_fingerprint"`
	Choices           []struct {
		Message struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func TestAgentValidation(t *testing.T) {
	ts, up := startAgent(t)
	tool := func(name string) map[string]any {
		return map[string]any{"type": "function", "function": map[string]any{"name": name}}
	}
	base := func(kv ...any) map[string]any {
		b := map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(b, kv[i].(string))
				continue
			}
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}
	msgs := func(m ...map[string]any) []map[string]any { return m }
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"model missing", base("model", nil), "model"},
		{"model without provider", base("model", "gpt-4o"), "model"},
		{"model unknown provider", base("model", "nope:x"), "model"},
		{"model not a string", base("model", 5), "model"},
		{"input missing", base("input", nil), "input"},
		{"input empty", base("input", ""), "input"},
		{"input number", base("input", 5), "input"},
		{"input empty array", base("input", []any{}), "input"},
		{"input role", base("input", msgs(map[string]any{"role": "bot", "content": "x"})), "input[0].role"},
		{"input role missing", base("input", msgs(map[string]any{"content": "x"})), "input[0].role"},
		{"input content missing", base("input", msgs(map[string]any{"role": "user"})), "input[0].content"},
		{"input content number", base("input", msgs(map[string]any{"role": "user", "content": 5})), "input[0].content"},
		{"input part type", base("input", msgs(map[string]any{"role": "user", "content": []any{map[string]any{"type": "audio"}}})), "input[0].content[0].type"},
		{"input image url", base("input", msgs(map[string]any{"role": "user", "content": []any{map[string]any{"type": "image_url"}}})), "input[0].content[0].image_url.url"},
		{"input tool without id", base("input", msgs(map[string]any{"role": "user", "content": "x"}, map[string]any{"role": "tool", "content": "x"})), "input[1].tool_call_id"},
		{"input tool_call_id type", base("input", msgs(map[string]any{"role": "tool", "content": "x", "tool_call_id": 5})), "input[0].tool_call_id"},
		{"input name type", base("input", msgs(map[string]any{"role": "user", "content": "x", "name": true})), "input[0].name"},
		{"input tool_calls on user", base("input", msgs(map[string]any{"role": "user", "content": "x", "tool_calls": []any{}})), "input[0].tool_calls"},
		{"input tool_calls id", base("input", msgs(map[string]any{"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}})), "input[0].tool_calls[0].id"},
		{"input assistant empty", base("input", msgs(map[string]any{"role": "assistant", "content": nil})), "input[0].content"},
		{"instructions type", base("instructions", 5), "instructions"},
		{"stream type", base("stream", "yes"), "stream"},
		{"tools not array", base("tools", "x"), "tools"},
		{"tools type", base("tools", []any{map[string]any{"type": "retrieval", "function": map[string]any{"name": "a"}}}), "tools[0].type"},
		{"tools name", base("tools", []any{tool("bad name")}), "tools[0].function.name"},
		{"tools name missing", base("tools", []any{map[string]any{"type": "function", "function": map[string]any{}}}), "tools[0].function.name"},
		{"tools duplicate", base("tools", []any{tool("a"), tool("a")}), "tools[1].function.name"},
		{"tools parameters", base("tools", []any{map[string]any{"type": "function", "function": map[string]any{"name": "a", "parameters": "x"}}}), "tools[0].function.parameters"},
		{"tool_choice word", base("tool_choice", "maybe"), "tool_choice"},
		{"tool_choice number", base("tool_choice", 5), "tool_choice"},
		{"tool_choice object type", base("tool_choice", map[string]any{"type": "tool", "function": map[string]any{"name": "a"}}), "tool_choice.type"},
		{"tool_choice object name", base("tool_choice", map[string]any{"type": "function"}), "tool_choice.function.name"},
		{"tool_choice unknown tool", base("tools", []any{tool("a")}, "tool_choice", map[string]any{"type": "function", "function": map[string]any{"name": "b"}}), "tool_choice"},
		{"parallel_tool_calls type", base("parallel_tool_calls", "yes"), "parallel_tool_calls"},
		{"reasoning_effort value", base("reasoning_effort", "max"), "reasoning_effort"},
		{"reasoning_effort type", base("reasoning_effort", 1), "reasoning_effort"},
		{"temperature high", base("temperature", 2.01), "temperature"},
		{"temperature low", base("temperature", -0.1), "temperature"},
		{"temperature type", base("temperature", "hot"), "temperature"},
		{"top_p high", base("top_p", 1.5), "top_p"},
		{"top_p low", base("top_p", -1), "top_p"},
		{"max_tokens zero", base("max_tokens", 0), "max_tokens"},
		{"max_tokens fraction", base("max_tokens", 1.5), "max_tokens"},
		{"max_tokens negative", base("max_tokens", -5), "max_tokens"},
		{"max_completion_tokens zero", base("max_completion_tokens", 0), "max_completion_tokens"},
		{"presence_penalty", base("presence_penalty", 2.5), "presence_penalty"},
		{"frequency_penalty", base("frequency_penalty", -2.5), "frequency_penalty"},
		{"stop too many", base("stop", []string{"a", "b", "c", "d", "e"}), "stop"},
		{"stop empty string", base("stop", []string{""}), "stop[0]"},
		{"stop number", base("stop", 5), "stop"},
		{"stop array of numbers", base("stop", []int{1}), "stop"},
		{"customModelParams type", base("customModelParams", "x"), "customModelParams"},
		{"response_format type", base("response_format", map[string]any{"type": "xml"}), "response_format.type"},
		{"response_format missing type", base("response_format", map[string]any{}), "response_format.type"},
		{"response_format not object", base("response_format", "json"), "response_format"},
		{"response_format schema missing", base("response_format", map[string]any{"type": "json_schema"}), "response_format.json_schema"},
		{"response_format schema name", base("response_format", map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "a b"}}), "response_format.json_schema.name"},
		{"mcp name", base("mcp_servers", []any{map[string]any{"name": "", "type": "url", "url": "http://x"}}), "mcp_servers[0].name"},
		{"mcp name pattern", base("mcp_servers", []any{map[string]any{"name": "a/b", "type": "url", "url": "http://x"}}), "mcp_servers[0].name"},
		{"mcp name duplicate", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "http://x"}, map[string]any{"name": "a", "type": "url", "url": "http://y"}}), "mcp_servers[1].name"},
		{"mcp type", base("mcp_servers", []any{map[string]any{"name": "a", "type": "stdio", "url": "http://x"}}), "mcp_servers[0].type"},
		{"mcp url scheme", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "ftp://x"}}), "mcp_servers[0].url"},
		{"mcp url relative", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "/mcp"}}), "mcp_servers[0].url"},
		{"mcp url credentials", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "http://u:p@x/mcp"}}), "mcp_servers[0].url"},
		{"mcp reserved header", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "http://x", "custom_headers": map[string]string{"Host": "y"}}}), "mcp_servers[0].custom_headers"},
		{"mcp bad header name", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "http://x", "custom_headers": map[string]string{"bad header": "y"}}}), "mcp_servers[0].custom_headers"},
		{"mcp header value newline", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "http://x", "custom_headers": map[string]string{"X-A": "a\r\nB: c"}}}), "mcp_servers[0].custom_headers"},
		{"mcp two authorizations", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "http://x", "authorization_token": "t", "custom_headers": map[string]string{"Authorization": "Basic x"}}}), "mcp_servers[0].custom_headers"},
		{"mcp allowed_tools type", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "http://x", "tool_configuration": map[string]any{"allowed_tools": "add"}}}), "allowed_tools"},
		{"mcp enabled type", base("mcp_servers", []any{map[string]any{"name": "a", "type": "url", "url": "http://x", "tool_configuration": map[string]any{"enabled": "no"}}}), "enabled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runAgent(ts, tc.body)
			if r.Status != 400 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			if msg := errorMessage(t, r); !strings.Contains(msg, tc.field) {
				t.Fatalf("message %q does not name %q", msg, tc.field)
			}
		})
	}
	if n := up.Count(); n != 0 {
		t.Fatalf("invalid requests reached the upstream %d times", n)
	}
	if r := ts.Do("POST", "/v1/agent/run", "", base()); r.Status != 401 {
		t.Fatalf("no key: %d", r.Status)
	}
}

func TestAgentMapsEveryParameter(t *testing.T) {
	ts, up := startAgent(t)
	r := runAgent(ts, map[string]any{
		"model":        "openai:gpt-4o-mini",
		"instructions": "Be brief.",
		"input": []any{
			map[string]any{"role": "user", "content": "weather?"},
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
				"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "sunny"},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "and now?"},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/a.png", "detail": "low"}}}},
		},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather", "description": "Weather",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}},
		"tool_choice":         map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}},
		"parallel_tool_calls": false,
		"temperature":         0.3,
		"top_p":               0.9,
		"max_tokens":          55,
		"presence_penalty":    0.5,
		"frequency_penalty":   -0.5,
		"stop":                []string{"END", "STOP"},
		"response_format":     map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "answer", "schema": map[string]any{"type": "object"}}},
		"customModelParams":   map[string]any{"seed": 7, "logit_bias": map[string]any{"50256": -100}, "user": "u-1"},
		"apiKey":              "sk-ignored", "rawResponse": true, "unknownKey": 1,
	})
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	got := upstreamBody(t, up, -1)
	want := map[string]any{
		"model": "gpt-4o-mini", "temperature": 0.3, "top_p": 0.9, "max_completion_tokens": 55.0,
		"presence_penalty": 0.5, "frequency_penalty": -0.5, "stop": []any{"END", "STOP"}, "parallel_tool_calls": false,
		"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}},
		"seed":        7.0, "logit_bias": map[string]any{"50256": -100.0}, "user": "u-1",
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "answer", "schema": map[string]any{"type": "object"}}},
	}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("upstream %s = %#v, want %#v", k, got[k], v)
		}
	}
	msgs := got["messages"].([]any)
	if len(msgs) != 5 {
		t.Fatalf("messages = %v", msgs)
	}
	first := msgs[0].(map[string]any)
	if first["role"] != "system" || first["content"] != "Be brief." {
		t.Fatalf("instructions are not the leading system message: %v", first)
	}
	if m := msgs[2].(map[string]any); m["tool_calls"] == nil || m["content"] != nil {
		t.Fatalf("assistant tool-call message = %v", m)
	}
	if m := msgs[3].(map[string]any); m["role"] != "tool" || m["tool_call_id"] != "call_1" || m["content"] != "sunny" {
		t.Fatalf("tool message = %v", m)
	}
	if parts, ok := msgs[4].(map[string]any)["content"].([]any); !ok || len(parts) != 2 {
		t.Fatalf("multimodal content = %v", msgs[4])
	}
	tools := got["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["function"].(map[string]any)["name"] != "get_weather" {
		t.Fatalf("tools = %v", tools)
	}
	if h := up.LastRequest().Header.Get("Authorization"); h != "Bearer sk-test" {
		t.Fatalf("provider key = %q, want the LB-LLM-Key header", h)
	}
}

func TestAgentDefaults(t *testing.T) {
	ts, up := startAgent(t)
	r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "reasoning_effort": nil, "instructions": nil})
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	got := upstreamBody(t, up, -1)
	want := map[string]any{"temperature": 0.7, "top_p": 1.0, "max_completion_tokens": 1000.0, "presence_penalty": 0.0, "frequency_penalty": 0.0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("default %s = %v, want %v", k, got[k], v)
		}
	}
	for _, k := range []string{"stop", "tools", "tool_choice", "response_format", "reasoning_effort", "stream"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s sent without being asked: %v", k, got[k])
		}
	}
	msgs := got["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["role"] != "user" || msgs[0].(map[string]any)["content"] != "hi" {
		t.Fatalf("a string input is one user message: %v", msgs)
	}
	// max_completion_tokens is accepted as max_tokens' newer name, and wins.
	runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "max_tokens": 10, "max_completion_tokens": 20})
	if got := upstreamBody(t, up, -1)["max_completion_tokens"]; got != 20.0 {
		t.Fatalf("max_completion_tokens = %v", got)
	}
	// A single stop string is one sequence.
	runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stop": "END"})
	if got := upstreamBody(t, up, -1)["stop"]; !reflect.DeepEqual(got, []any{"END"}) {
		t.Fatalf("stop = %v", got)
	}
}

func TestAgentToolChoiceForms(t *testing.T) {
	ts, up := startAgent(t)
	tools := []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "a"}},
		map[string]any{"type": "function", "function": map[string]any{"name": "b"}},
	}
	cases := []struct {
		choice any
		want   any
	}{
		{"auto", "auto"},
		{"required", "required"},
		{"none", "none"},
		{map[string]any{"type": "function", "function": map[string]any{"name": "b"}}, map[string]any{"type": "function", "function": map[string]any{"name": "b"}}},
	}
	for _, tc := range cases {
		r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "tools": tools, "tool_choice": tc.choice})
		if r.Status != 200 {
			t.Fatalf("%v: status %d: %s", tc.choice, r.Status, r.Body)
		}
		if got := upstreamBody(t, up, -1)["tool_choice"]; !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("tool_choice %v sent as %#v", tc.choice, got)
		}
	}
}

func TestAgentReasoningEffortRule(t *testing.T) {
	ts, up := startAgent(t)
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "a"}}}
	cases := []struct {
		name   string
		model  string
		effort any
		tools  bool
		want   any
	}{
		{"listed model with tools gets none", "gpt-5.4", "high", true, "none"},
		{"listed model with tools and no effort gets none", "gpt-5.6-terra", nil, true, "none"},
		{"listed model without tools keeps effort", "gpt-5.4", "high", false, "high"},
		{"unlisted model with tools keeps effort", "gpt-5.1", "medium", true, "medium"},
		// Models before gpt-5.1 have no "none"; their lowest effort is
		// "minimal" (providers/params.go).
		{"caller may ask none", "gpt-5-mini", "none", false, "minimal"},
		{"caller may ask none of gpt-5.1", "gpt-5.1", "none", false, "none"},
		{"no effort sends none", "gpt-5-mini", nil, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"model": "openai:" + tc.model, "input": "hi", "reasoning_effort": tc.effort}
			if tc.tools {
				body["tools"] = tools
			}
			if r := runAgent(ts, body); r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			if got := upstreamBody(t, up, -1)["reasoning_effort"]; got != tc.want {
				t.Fatalf("reasoning_effort = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAgentJSONResponse(t *testing.T) {
	ts, up := startAgent(t)
	r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"})
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var raw map[string]any
	r.JSON(t, &raw)
	for _, k := range []string{"output", "id", "object", "created", "model", "choices", "usage", "system_fingerprint"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("response has no %q: %s", k, r.Body)
		}
	}
	var out agentOut
	r.JSON(t, &out)
	if out.Output == nil || *out.Output != fake.DefaultText || out.Object != "chat.completion" || out.Model != "gpt-4o-mini" ||
		len(out.Choices) != 1 || out.Choices[0].FinishReason != "stop" || out.Usage.TotalTokens != 17 {
		t.Fatalf("response = %s", r.Body)
	}

	// A call to a caller-defined tool: output is null, the calls are in the choice.
	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_9", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}})
	r = runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "weather in Oslo?",
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}}})
	out = agentOut{}
	r.JSON(t, &out)
	if r.Status != 200 || out.Output != nil || !strings.Contains(string(r.Body), `"output":null`) {
		t.Fatalf("tool call response = %s", r.Body)
	}
	tc := out.Choices[0].Message.ToolCalls
	if len(tc) != 1 || tc[0].ID != "call_9" || tc[0].Type != "function" || tc[0].Function.Name != "get_weather" ||
		tc[0].Function.Arguments != `{"city":"Oslo"}` || out.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("tool calls = %s", r.Body)
	}
}

func TestAgentStream(t *testing.T) {
	ts, up := startAgent(t)
	r := runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stream": true})
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d %s: %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	chunks := decodeStream(t, r.Body)
	text, calls, finish, usage := assemble(chunks)
	if text != fake.DefaultText || calls != nil || finish != "stop" || usage == nil || usage.TotalTokens != 17 {
		t.Fatalf("text %q calls %v finish %q usage %+v", text, calls, finish, usage)
	}
	if got := upstreamBody(t, up, -1)["stream"]; got != true {
		t.Fatalf("upstream stream = %v", got)
	}

	// Caller tool calls stream as complete deltas, then finish_reason tool_calls.
	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_1", Name: "a", Arguments: `{"x":1}`}, {ID: "call_2", Name: "b", Arguments: `{}`}}})
	r = runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stream": true,
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "a"}}, map[string]any{"type": "function", "function": map[string]any{"name": "b"}}}})
	_, calls, finish, _ = assemble(decodeStream(t, r.Body))
	if finish != "tool_calls" || len(calls) != 2 || calls[0].ID != "call_1" || calls[0].Function.Name != "a" ||
		calls[0].Function.Arguments != `{"x":1}` || calls[1].Type != "function" || calls[1].Function.Name != "b" {
		t.Fatalf("calls %+v finish %q", calls, finish)
	}

	// Without stream: true the answer is JSON, even with a stream-ish body.
	r = runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stream": false})
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("content type %s", r.Header.Get("Content-Type"))
	}

	// An upstream error before any output is a plain JSON error.
	up.Enqueue(fake.Reply{Status: 400, Message: "bad things"})
	r = runAgent(ts, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stream": true})
	if r.Status < 400 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("upstream error: %d %s", r.Status, r.Body)
	}
}

func TestAgentProviderKey(t *testing.T) {
	ts, up := startAgent(t)
	body := map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"}
	key := func() string { return up.LastRequest().Header.Get("Authorization") }

	// The header wins over the body's apiKey (header names are case-insensitive).
	r := ts.Do("POST", "/v1/agent/run", servertest.AdminKey, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "apiKey": "sk-body"}, "lb-llm-key", "sk-header")
	if r.Status != 200 || key() != "Bearer sk-header" {
		t.Fatalf("%d %s key %q", r.Status, r.Body, key())
	}
	r = ts.Do("POST", "/v1/agent/run", servertest.AdminKey, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "apiKey": "sk-body"})
	if r.Status != 200 || key() != "Bearer sk-body" {
		t.Fatalf("%d %s key %q", r.Status, r.Body, key())
	}
	// No key anywhere: a 400 that says where to put one.
	r = ts.Do("POST", "/v1/agent/run", servertest.AdminKey, body)
	if r.Status != 400 || !strings.Contains(errorMessage(t, r), "LB-LLM-Key") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// The owner's keyset is used when the request has none; an org key works too.
	if r := ts.Do("PUT", "/v1/keysets/openai", servertest.AdminKey, map[string]string{"key": "sk-keyset-admin"}); r.Status != 200 {
		t.Fatalf("keyset: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("POST", "/v1/agent/run", servertest.AdminKey, body); r.Status != 200 || key() != "Bearer sk-keyset-admin" {
		t.Fatalf("%d %s key %q", r.Status, r.Body, key())
	}
	orgKey := ts.OrgWithKey("acme", "admin")
	if r := ts.Do("POST", "/v1/agent/run", orgKey, body, "LB-LLM-Key", "sk-org"); r.Status != 200 || key() != "Bearer sk-org" {
		t.Fatalf("org key: %d %s", r.Status, r.Body)
	}
	// The hearth test double needs no key.
	r = ts.Do("POST", "/v1/agent/run", servertest.AdminKey, map[string]any{"model": "hearth:echo", "input": "echo me"})
	var out agentOut
	r.JSON(t, &out)
	if r.Status != 200 || out.Output == nil || *out.Output != "echo me" {
		t.Fatalf("hearth:echo: %d %s", r.Status, r.Body)
	}
}
