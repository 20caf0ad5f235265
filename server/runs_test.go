package server_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func user(content string) map[string]any { return map[string]any{"role": "user", "content": content} }

// plain renders what the model received as role[name]: content lines.
func plain(msgs []engine.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		role := m.Role
		if m.Name != "" {
			role += "[" + m.Name + "]"
		}
		out[i] = role + ": " + m.Content.String()
	}
	return out
}

func TestRunNonStreamShape(t *testing.T) {
	e := startEnv(t)
	key := e.createPipe(t, admin, map[string]any{"name": "p", "stream": true, "temperature": 0.2, "top_p": 0.5,
		"max_tokens": 64, "presence_penalty": 0.1, "frequency_penalty": 0.2, "stop": []string{"END"}})
	// The pipe streams, but the body has no "stream": true, so JSON it is.
	r := e.Do("POST", "/v1/pipes/run", key, map[string]any{"messages": []any{user("Hi")}, "apiKey": key, "rawResponse": true})
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %s %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	if id := r.Header.Values("lb-thread-id"); len(id) != 1 || !uuidRE.MatchString(id[0]) {
		t.Fatalf("lb-thread-id header %v (%v)", id, r.Header)
	}
	var got map[string]any
	r.JSON(t, &got)
	want := map[string]any{
		"success": true, "completion": "Hello from the fake model.",
		"raw": map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion", "created": 1720131129.0, "model": "gpt-4o-mini", "provider": "openai",
			"choices": []any{map[string]any{"index": 0.0, "message": map[string]any{"role": "assistant", "content": "Hello from the fake model.",
				"refusal": nil, "annotations": []any{}}, "logprobs": nil, "finish_reason": "stop"}},
			"usage":              map[string]any{"prompt_tokens": 12.0, "completion_tokens": 5.0, "total_tokens": 17.0},
			"system_fingerprint": "fp_fake",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("response\n got %v\nwant %v", got, want)
	}
	req := e.llm.last(t)
	if req.Model != "gpt-4o-mini" || *req.Temperature != 0.2 || *req.TopP != 0.5 || *req.MaxTokens != 64 ||
		*req.PresencePenalty != 0.1 || *req.FrequencyPenalty != 0.2 || !reflect.DeepEqual(req.Stop, []string{"END"}) {
		t.Fatalf("parameters not passed: %+v", req)
	}
	if req.APIKey != "sk-server-openai" || req.Tools != nil || req.ToolChoice != nil || req.ResponseFormat != nil {
		t.Fatalf("request %+v", req)
	}
}

func TestRunProviderKeys(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	e.createPipe(t, admin, map[string]any{"name": "claude", "model": "anthropic:claude-x"})
	e.createPipe(t, admin, map[string]any{"name": "local", "model": "local:llama"})
	body := func(name string, extra ...any) map[string]any {
		b := map[string]any{"name": name, "messages": []any{user("hi")}}
		for i := 0; i+1 < len(extra); i += 2 {
			b[extra[i].(string)] = extra[i+1]
		}
		return b
	}
	cases := []struct {
		name    string
		body    map[string]any
		headers []string
		status  int
		key     string
	}{
		{"server key", body("p"), nil, 200, "sk-server-openai"},
		{"body llmKey", body("p", "llmKey", "sk-body"), nil, 200, "sk-body"},
		{"header wins, any case", body("p", "llmKey", "sk-body"), []string{"lb-llm-key", "sk-header"}, 200, "sk-header"},
		{"no key for provider", body("claude"), nil, 400, ""},
		{"keyless provider", body("local"), nil, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do("POST", "/v1/pipes/run", admin, tc.body, tc.headers...)
			if r.Status != tc.status {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			if tc.status == 200 && e.llm.last(t).APIKey != tc.key {
				t.Fatalf("key %q, want %q", e.llm.last(t).APIKey, tc.key)
			}
			if tc.status == 400 && !strings.Contains(string(r.Body), "LB-LLM-Key") {
				t.Fatalf("unhelpful error %s", r.Body)
			}
		})
	}
	// The owner's keyset is used when no request key is sent.
	if r := e.Do("PUT", "/v1/keysets/anthropic", admin, map[string]string{"key": "sk-ant-owner"}); r.Status != 200 {
		t.Fatalf("keyset: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/run", admin, body("claude")); r.Status != 200 || e.llm.last(t).APIKey != "sk-ant-owner" {
		t.Fatalf("owner keyset: %d %s", r.Status, r.Body)
	}
}

func TestRunMessageAssembly(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{
		"name": "p", "json": true,
		"messages": []any{
			map[string]any{"role": "system", "content": "You are {{ persona }}."},
			map[string]any{"role": "system", "name": "safety", "content": "Never reveal {{secret}}."},
			map[string]any{"role": "system", "name": "opening", "content": "Welcome!"},
			map[string]any{"role": "user", "content": "Example question about {{topic}}"},
			map[string]any{"role": "assistant", "content": "Example answer"},
		},
		"variables": []any{map[string]string{"name": "persona", "value": "a pirate"}, map[string]string{"name": "topic", "value": "ships"},
			map[string]string{"name": "secret", "value": "the map"}},
	})
	// First run creates the thread.
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("First {{topic}}")}})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	thread := r.Header.Get("lb-thread-id")
	// Second run continues it; the request overrides a variable and brings
	// its own system message, which stays in place.
	r = e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "threadId": thread,
		"variables": map[string]string{"topic": "treasure"},
		"messages":  []any{map[string]any{"role": "system", "content": "Request system {{topic}}"}, user("Second {{ topic }} {{unknown}}")}})
	if r.Status != 200 || r.Header.Get("lb-thread-id") != thread {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	got := plain(e.llm.last(t).Messages)
	want := []string{
		"system: You are a pirate. \n \"\"\"SAFETY GUIDELINE: Never reveal the map.\"\"\"\n\nOutput should be in JSON format.",
		"user: Example question about treasure",
		"assistant: Example answer",
		"user: First ships",
		"assistant: Hello from the fake model.",
		"system: Request system treasure",
		"user: Second treasure {{unknown}}",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("messages\n got %q\nwant %q", got, want)
	}
	if rf := e.llm.last(t).ResponseFormat; rf == nil || rf.Type != "json_object" {
		t.Fatalf("json mode without response_format: %+v", rf)
	}
	// The thread holds both runs, chronologically, with the substituted text.
	var msgs []map[string]any
	e.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m["role"].(string)+": "+m["content"].(string))
	}
	wantThread := []string{"user: First ships", "assistant: Hello from the fake model.", "system: Request system treasure",
		"user: Second treasure {{unknown}}", "assistant: Hello from the fake model."}
	if !reflect.DeepEqual(texts, wantThread) {
		t.Fatalf("thread\n got %q\nwant %q", texts, wantThread)
	}
}

func TestRunVariables(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p", "variables": map[string]string{"a": "pipe-a", "b": "pipe-b", "empty": ""}})
	cases := []struct {
		name string
		vars any
		in   string
		want string
	}{
		{"pipe values", nil, "{{a}} {{ b }}", "pipe-a pipe-b"},
		{"object form overrides", map[string]string{"a": "req-a"}, "{{a}} {{b}}", "req-a pipe-b"},
		{"array form overrides", []any{map[string]string{"name": "b", "value": "req-b"}}, "{{a}} {{b}}", "pipe-a req-b"},
		{"unknown stays", nil, "{{nope}} and {{ nope }}", "{{nope}} and {{ nope }}"},
		{"empty value stays", nil, "{{empty}}", "{{empty}}"},
		{"request empty value stays", map[string]string{"a": ""}, "{{a}}", "{{a}}"},
		{"no nesting across lines", nil, "{{a\n}}", "{{a\n}}"},
		{"several on one line", map[string]string{"x": "1"}, "{{x}}{{x}}-{{a}}", "11-pipe-a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"name": "p", "messages": []any{user(tc.in)}}
			if tc.vars != nil {
				body["variables"] = tc.vars
			}
			if r := e.Do("POST", "/v1/pipes/run", admin, body); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			msgs := e.llm.last(t).Messages
			if got := msgs[len(msgs)-1].Content.String(); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	// Content parts are left alone.
	body := map[string]any{"name": "p", "messages": []any{map[string]any{"role": "user", "content": []any{map[string]string{"type": "text", "text": "{{a}}"}}}}}
	if r := e.Do("POST", "/v1/pipes/run", admin, body); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if m := e.llm.last(t).Messages[0]; m.Content.Parts == nil || m.Content.Parts[0].Text != "{{a}}" {
		t.Fatalf("parts %+v", m.Content)
	}
}

func TestRunRAGAndRuntimeMemory(t *testing.T) {
	e := startEnv(t)
	e.mem.chunks = []engine.RAGChunk{{Text: "Hearth is a server.", DocName: "intro.md"}, {Text: "It is one binary.", DocName: "faq.md"}}
	e.createPipe(t, admin, map[string]any{"name": "rag", "memory": []any{map[string]string{"name": "docs"}},
		"messages": []any{map[string]any{"role": "system", "content": "Base."}}})
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "rag", "messages": []any{user("What is Hearth?")}}); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	sys := e.llm.last(t).Messages[0].Content.String()
	want := "Base. \n\n \"\"\"" + engine.DefaultRAGPrompt + "\"\"\" \n\n \"\"\"CONTEXT:\n Hearth is a server. \n\n Source: intro.md\n\nIt is one binary. \n\n Source: faq.md\"\"\""
	if sys != want {
		t.Fatalf("system\n got %q\nwant %q", sys, want)
	}
	if e.mem.queries[0] != "What is Hearth?" || !reflect.DeepEqual(e.mem.names[0], []string{"docs"}) {
		t.Fatalf("retrieval %v %v", e.mem.queries, e.mem.names)
	}
	// Run-time memory replaces the pipe's; unknown memories are refused.
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "rag", "memory": []any{map[string]string{"name": "faq"}}, "messages": []any{user("q")}}); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if !reflect.DeepEqual(e.mem.names[1], []string{"faq"}) {
		t.Fatalf("runtime memory %v", e.mem.names[1])
	}
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "rag", "memory": []any{map[string]string{"name": "nope"}}, "messages": []any{user("q")}})
	if r.Status != 400 || !strings.Contains(string(r.Body), "memory[0].name") {
		t.Fatalf("unknown runtime memory: %d %s", r.Status, r.Body)
	}
	// No chunks: no RAG block; no memories: no retrieval at all.
	e.mem.chunks = nil
	e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "rag", "messages": []any{user("q")}})
	if sys := e.llm.last(t).Messages[0].Content.String(); sys != "Base." {
		t.Fatalf("system without chunks %q", sys)
	}
	e.createPipe(t, admin, map[string]any{"name": "plain"})
	n := len(e.mem.queries)
	e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "plain", "messages": []any{user("q")}})
	if len(e.mem.queries) != n {
		t.Fatal("retrieval without memories")
	}
	if m := e.llm.last(t).Messages; len(m) != 1 || m[0].Role != "user" {
		t.Fatalf("a pipe without prompts sends only the request: %q", plain(m))
	}
}

func TestRunComposedPromptVariants(t *testing.T) {
	e := startEnv(t)
	cases := []struct {
		name     string
		messages []any
		json     bool
		want     string
	}{
		{"safety only", []any{map[string]any{"role": "system", "name": "safety", "content": "Be kind."}}, false, `"""SAFETY GUIDELINE: Be kind."""`},
		{"json only", nil, true, "Output should be in JSON format."},
		{"custom json prompt", []any{map[string]any{"role": "system", "content": "Base"}, map[string]any{"role": "system", "name": "json", "content": "Reply as {\"a\":1}"}}, true, "Base\n\nReply as {\"a\":1}"},
		{"json prompt ignored when json off", []any{map[string]any{"role": "system", "content": "Base"}, map[string]any{"role": "system", "name": "json", "content": "J"}}, false, "Base"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "p" + string(rune('a'+i))
			body := map[string]any{"name": name, "json": tc.json}
			if tc.messages != nil {
				body["messages"] = tc.messages
			}
			e.createPipe(t, admin, body)
			if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": name, "messages": []any{user("x")}}); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			if got := e.llm.last(t).Messages[0].Content.String(); got != tc.want {
				t.Fatalf("got %q want %q", got, tc.want)
			}
		})
	}
	// Runtime json:true turns JSON mode on for one run; a json_schema
	// response_format is passed through.
	e.createPipe(t, admin, map[string]any{"name": "schema", "response_format": map[string]any{"type": "json_schema",
		"json_schema": map[string]any{"name": "out", "schema": map[string]any{"type": "object"}, "strict": true}}})
	e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "schema", "json": true, "messages": []any{user("x")}})
	rf := e.llm.last(t).ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "out" || e.llm.last(t).Messages[0].Content.String() != engine.DefaultJSONPrompt {
		t.Fatalf("structured output %+v %q", rf, plain(e.llm.last(t).Messages))
	}
}

func TestRunToolsNonStream(t *testing.T) {
	e := startEnv(t)
	tool := func(name string) map[string]any {
		return map[string]any{"type": "function", "function": map[string]any{"name": name, "parameters": map[string]any{"type": "object"}}}
	}
	e.createPipe(t, admin, map[string]any{"name": "p", "tools": []any{tool("pipe_tool")}, "tool_choice": "required", "parallel_tool_calls": false})
	e.llm.enqueue(fakeReply{ToolCalls: []engine.ToolCall{{ID: "call_1", Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: `{"loc":"SF"}`}}}})
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "tools": []any{tool("get_weather")}, "messages": []any{user("weather?")}})
	var got struct {
		Completion string `json:"completion"`
		Raw        struct {
			Choices []struct {
				Message struct {
					Content   *string           `json:"content"`
					ToolCalls []engine.ToolCall `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		} `json:"raw"`
	}
	r.JSON(t, &got)
	if r.Status != 200 || got.Completion != "" || got.Raw.Choices[0].FinishReason != "tool_calls" || got.Raw.Choices[0].Message.Content != nil {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if tc := got.Raw.Choices[0].Message.ToolCalls; len(tc) != 1 || tc[0].ID != "call_1" || tc[0].Type != "function" || tc[0].Function.Arguments != `{"loc":"SF"}` {
		t.Fatalf("tool calls %+v", tc)
	}
	req := e.llm.last(t)
	if len(req.Tools) != 1 || req.Tools[0].Function.Name != "get_weather" || req.ToolChoice.Mode != "required" || *req.ParallelToolCalls {
		t.Fatalf("request tools %+v %+v", req.Tools, req.ToolChoice)
	}
	// The thread stores the assistant tool call (content null) and a tool
	// result can be sent back.
	thread := r.Header.Get("lb-thread-id")
	var msgs []map[string]any
	e.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 2 || msgs[1]["content"] != nil || len(msgs[1]["tool_calls"].([]any)) != 1 {
		t.Fatalf("thread %v", msgs)
	}
	r = e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "threadId": thread,
		"messages": []any{map[string]any{"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "sunny"}}})
	if r.Status != 200 {
		t.Fatalf("tool result: %d %s", r.Status, r.Body)
	}
	m := e.llm.last(t).Messages
	if last := m[len(m)-1]; last.Role != "tool" || last.ToolCallID != "call_1" || m[len(m)-2].ToolCalls[0].ID != "call_1" {
		t.Fatalf("tool round trip %q", plain(m))
	}
	// Without request tools the pipe's tools are used; a forced tool the
	// request's tools lack is refused.
	e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("x")}})
	if req := e.llm.last(t); len(req.Tools) != 1 || req.Tools[0].Function.Name != "pipe_tool" {
		t.Fatalf("pipe tools %+v", req.Tools)
	}
	e.createPipe(t, admin, map[string]any{"name": "forced", "tools": []any{tool("a")}, "tool_choice": map[string]any{"type": "function", "function": map[string]string{"name": "a"}}})
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "forced", "tools": []any{tool("b")}, "messages": []any{user("x")}}); r.Status != 400 {
		t.Fatalf("forced tool missing: %d %s", r.Status, r.Body)
	}
}

func TestRunThreads(t *testing.T) {
	e := startEnv(t)
	bob := e.UserWithKey("bob")
	key := e.createPipe(t, admin, map[string]any{"name": "p"})
	r := e.Do("POST", "/v1/pipes/run", key, map[string]any{"messages": []any{user("one")}})
	thread := r.Header.Get("lb-thread-id")
	if r.Status != 200 || !uuidRE.MatchString(thread) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// A pipe-key run's thread belongs to the pipe's owner.
	var th map[string]any
	if r := e.Do("GET", "/v1/threads/"+thread, admin, nil); r.Status != 200 {
		t.Fatalf("owner reads the thread: %d", r.Status)
	} else {
		r.JSON(t, &th)
	}
	if th["id"] != thread || th["object"] != "thread" {
		t.Fatalf("thread %v", th)
	}
	if r := e.Do("GET", "/v1/threads/"+thread, bob, nil); r.Status != 404 {
		t.Fatalf("bob reads it: %d", r.Status)
	}
	// Unknown (or someone else's) thread: 404, and nothing is called.
	n := e.llm.count()
	for _, id := range []string{"nope", "00000000-0000-4000-8000-000000000000"} {
		r := e.Do("POST", "/v1/pipes/run", key, map[string]any{"threadId": id, "messages": []any{user("x")}})
		if r.Status != 404 || !strings.Contains(string(r.Body), "thread") {
			t.Fatalf("unknown thread: %d %s", r.Status, r.Body)
		}
	}
	e.createPipe(t, bob, map[string]any{"name": "p"})
	if r := e.Do("POST", "/v1/pipes/run", bob, map[string]any{"name": "p", "threadId": thread, "messages": []any{user("x")}}); r.Status != 404 {
		t.Fatalf("bob continues admin's thread: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/pipes/run", key, map[string]any{"threadId": "bad/id", "messages": []any{user("x")}}); r.Status != 400 {
		t.Fatalf("bad thread id: %d", r.Status)
	}
	if e.llm.count() != n {
		t.Fatal("the model was called for a refused run")
	}
	// Continuation: history goes to the model, the thread grows.
	e.Do("POST", "/v1/pipes/run", key, map[string]any{"threadId": thread, "messages": []any{user("two")}})
	if got := plain(e.llm.last(t).Messages); !reflect.DeepEqual(got, []string{"user: one", "assistant: Hello from the fake model.", "user: two"}) {
		t.Fatalf("history %q", got)
	}
	var msgs []any
	e.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 4 {
		t.Fatalf("thread has %d messages", len(msgs))
	}
	// Messages appended through /v1/threads are part of the next run.
	e.Do("POST", "/v1/threads/"+thread+"/messages", admin, []any{map[string]any{"role": "user", "content": "appended"}})
	e.Do("POST", "/v1/pipes/run", key, map[string]any{"threadId": thread, "messages": []any{user("three")}})
	if got := plain(e.llm.last(t).Messages); got[4] != "user: appended" || got[5] != "user: three" {
		t.Fatalf("appended message not in history: %q", got)
	}
}

func TestRunStoreFalse(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p", "store": false, "messages": []any{map[string]any{"role": "system", "content": "S"}}})
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("secret prompt")}})
	thread := r.Header.Get("lb-thread-id")
	if r.Status != 200 || thread == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// The thread exists (the id stays usable) but holds nothing.
	if r := e.Do("GET", "/v1/threads/"+thread, admin, nil); r.Status != 200 {
		t.Fatalf("thread: %d", r.Status)
	}
	var msgs []any
	e.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 0 {
		t.Fatalf("store=false kept %v", msgs)
	}
	// Continuing works and still stores nothing; history added through the
	// threads API is used.
	e.Do("POST", "/v1/threads/"+thread+"/messages", admin, map[string]any{"messages": []any{user("kept by the caller")}})
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "threadId": thread, "messages": []any{user("again")}}); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if got := plain(e.llm.last(t).Messages); !reflect.DeepEqual(got, []string{"system: S", "user: kept by the caller", "user: again"}) {
		t.Fatalf("got %q", got)
	}
	e.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 1 {
		t.Fatalf("store=false kept %v", msgs)
	}
	// The run record holds no text.
	e.RunLog.Flush()
	r = e.Do("GET", "/v1/pipes/p/runs", admin, nil)
	if strings.Contains(string(r.Body), "secret prompt") || !strings.Contains(string(r.Body), thread) {
		t.Fatalf("runs %s", r.Body)
	}
}

func TestRunModeration(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "mod", "moderate": true})
	e.createPipe(t, admin, map[string]any{"name": "nomod"})
	e.createPipe(t, admin, map[string]any{"name": "claude", "moderate": true, "model": "anthropic:c"})
	n := e.llm.count()
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "mod", "messages": []any{user("hello [flag]")}})
	if r.Status != 400 || !strings.Contains(string(r.Body), "flagged") || !strings.Contains(string(r.Body), "harassment, violence") {
		t.Fatalf("flagged: %d %s", r.Status, r.Body)
	}
	if e.llm.count() != n {
		t.Fatal("flagged input reached the model")
	}
	if e.prov.mod.keys[0] != "sk-server-openai" || !reflect.DeepEqual(e.prov.mod.inputs[0], []string{"hello [flag]"}) {
		t.Fatalf("moderation call %v %v", e.prov.mod.keys, e.prov.mod.inputs)
	}
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "mod", "messages": []any{user("hello")}}); r.Status != 200 {
		t.Fatalf("clean: %d %s", r.Status, r.Body)
	}
	// Variable values are user input too.
	r = e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "mod", "variables": map[string]string{"x": "[flag] me"}, "messages": []any{user("{{x}}")}})
	if r.Status != 400 {
		t.Fatalf("flagged variable: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "nomod", "messages": []any{user("[flag]")}}); r.Status != 200 {
		t.Fatalf("moderate off: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "claude", "llmKey": "k", "messages": []any{user("[flag]")}}); r.Status != 200 {
		t.Fatalf("provider without moderation: %d %s", r.Status, r.Body)
	}
}

func TestRunRequestValidation(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no messages", map[string]any{"name": "p"}, "messages"},
		{"role", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "bot", "content": "x"}}}, "messages[0].role"},
		{"content null", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "user", "content": nil}}}, "messages[0].content"},
		{"tool without id", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "tool", "content": "x"}}}, "messages[0].tool_call_id"},
		{"tool call type", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"id": "c", "type": "x", "function": map[string]any{"name": "f", "arguments": "{}"}}}}}}, "messages[0].tool_calls[0].type"},
		{"part type", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "audio"}}}}}, "messages[0].content[0].type"},
		{"tools", map[string]any{"name": "p", "messages": []any{user("x")}, "tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": ""}}}}, "tools[0].function.name"},
		{"bad name", map[string]any{"name": "a b", "messages": []any{user("x")}}, "name"},
		{"stream type", map[string]any{"name": "p", "stream": "true", "messages": []any{user("x")}}, "stream"},
		{"variables type", map[string]any{"name": "p", "variables": "x", "messages": []any{user("x")}}, "variables"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do("POST", "/v1/pipes/run", admin, tc.body)
			var er apiErr
			r.JSON(t, &er)
			if r.Status != 400 || !strings.HasPrefix(er.Error.Message, tc.field) {
				t.Fatalf("want 400 naming %q: %d %s", tc.field, r.Status, r.Body)
			}
		})
	}
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "nope", "messages": []any{user("x")}}); r.Status != 404 {
		t.Fatalf("unknown pipe: %d", r.Status)
	}
	// A pipe with its own user message runs without request messages.
	e.createPipe(t, admin, map[string]any{"name": "gen", "messages": []any{user("Write about {{x}}")}, "variables": map[string]string{"x": "y"}})
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "gen", "variables": map[string]string{"x": "tea"}}); r.Status != 200 {
		t.Fatalf("generate-style run: %d %s", r.Status, r.Body)
	}
	if got := plain(e.llm.last(t).Messages); !reflect.DeepEqual(got, []string{"user: Write about tea"}) {
		t.Fatalf("got %q", got)
	}
}

func TestRunUpstreamErrorAndRecords(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	e.llm.enqueue(fakeReply{Err: engine.Errorf(engine.CodeUpstream, "openai answered 503")})
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("x")}})
	if r.Status != 502 || !strings.Contains(string(r.Body), "openai answered 503") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("x")}}); r.Status != 200 {
		t.Fatalf("%d", r.Status)
	}
	e.RunLog.Flush()
	var page struct {
		Data       []engine.RunRecord `json:"data"`
		NextCursor *string            `json:"next_cursor"`
	}
	e.Do("GET", "/v1/pipes/p/runs", admin, nil).JSON(t, &page)
	if len(page.Data) != 2 || page.NextCursor != nil {
		t.Fatalf("runs %+v", page)
	}
	ok, failed := page.Data[0], page.Data[1] // newest first
	if ok.Status != "success" || ok.Model != "openai:gpt-4o-mini" || ok.PromptTokens != 12 || ok.CompletionTokens != 5 || ok.TotalTokens != 17 ||
		ok.CostUSD == nil || *ok.CostUSD != (12*0.15+5*0.6)/1e6 || ok.ThreadID == "" || ok.Pipe != "p" || ok.Endpoint != "/v1/pipes/run" {
		t.Fatalf("success record %+v", ok)
	}
	if failed.Status != "error" || failed.Error != "openai answered 503" {
		t.Fatalf("error record %+v", failed)
	}
	// Pagination and the all-pipes listing.
	e.Do("GET", "/v1/runs?limit=1", admin, nil).JSON(t, &page)
	if len(page.Data) != 1 || page.NextCursor == nil {
		t.Fatalf("page 1 %+v", page)
	}
	e.Do("GET", "/v1/runs?limit=1&cursor="+*page.NextCursor, admin, nil).JSON(t, &page)
	if len(page.Data) != 1 || page.Data[0].Status != "error" || page.NextCursor != nil {
		t.Fatalf("page 2 %+v", page)
	}
	raw := e.Do("GET", "/v1/runs?pipe=p", admin, nil)
	var anyPage map[string]any
	json.Unmarshal(raw.Body, &anyPage)
	if len(anyPage["data"].([]any)) != 2 {
		t.Fatalf("?pipe= %s", raw.Body)
	}
	if r := e.Do("GET", "/v1/runs?limit=x", admin, nil); r.Status != 400 {
		t.Fatalf("bad limit %d", r.Status)
	}
	bob := e.UserWithKey("bob")
	e.Do("GET", "/v1/runs", bob, nil).JSON(t, &page)
	if len(page.Data) != 0 {
		t.Fatal("bob sees admin's runs")
	}
}
