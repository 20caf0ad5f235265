package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// These tests run pipes through the real provider registry against the
// fake OpenAI upstream (and the offline hearth:echo model), end to end.

func startUpstream(t *testing.T) (*servertest.Server, *fake.Server) {
	t.Helper()
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server-openai"))
	return ts, up
}

func TestUpstreamRunJSON(t *testing.T) {
	ts, up := startUpstream(t)
	r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "temperature": 0.3, "max_tokens": 50,
		"messages":  []any{map[string]any{"role": "system", "content": "Be {{tone}}."}},
		"variables": map[string]string{"tone": "brief"}})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("Hi")}}, "LB-LLM-Key", "sk-request")
	var got struct {
		Success    bool   `json:"success"`
		Completion string `json:"completion"`
		Raw        struct {
			ID, Object, Model, Provider string
			Choices                     []map[string]any `json:"choices"`
			Usage                       engine.Usage     `json:"usage"`
		} `json:"raw"`
	}
	r.JSON(t, &got)
	if r.Status != 200 || !got.Success || got.Completion != fake.DefaultText || got.Raw.Provider != "openai" ||
		got.Raw.Model != "gpt-4o-mini" || got.Raw.Usage.TotalTokens != 17 || r.Header.Get("lb-thread-id") == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	req := up.LastRequest()
	if req.Header.Get("Authorization") != "Bearer sk-request" {
		t.Fatalf("upstream auth %q", req.Header.Get("Authorization"))
	}
	body := req.JSON()
	want := []any{map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": "Hi"}}
	if !reflect.DeepEqual(body["messages"], want) || body["temperature"] != 0.3 || body["model"] != "gpt-4o-mini" {
		t.Fatalf("upstream body %s", req.Body)
	}
}

func TestUpstreamRunStream(t *testing.T) {
	ts, up := startUpstream(t)
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p"})
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("Hi")}})
	chunks := decodeStream(t, r.Body)
	if text, _, finish, _ := assemble(chunks); text != fake.DefaultText || finish != "stop" {
		t.Fatalf("text %q finish %q", text, finish)
	}
	// Tool calls through the real adapter.
	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"loc":"SF"}`}, {ID: "call_2", Name: "t2"}}})
	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("weather")},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}, map[string]any{"type": "function", "function": map[string]any{"name": "t2"}}}})
	chunks = decodeStream(t, r.Body)
	_, calls, finish, _ := assemble(chunks)
	want := []engine.ToolCall{
		{ID: "call_1", Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: `{"loc":"SF"}`}},
		{ID: "call_2", Type: "function", Function: engine.FunctionCall{Name: "t2", Arguments: `{}`}},
	}
	if finish != "tool_calls" || !reflect.DeepEqual(calls, want) {
		t.Fatalf("calls %+v finish %q", calls, finish)
	}
	if tools := up.LastRequest().JSON()["tools"].([]any); len(tools) != 2 {
		t.Fatalf("upstream tools %v", tools)
	}
	// A stream cut before its end: an error event after the first bytes.
	up.Enqueue(fake.Reply{Text: "one two three", Truncate: true})
	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("x")}})
	events, err := parseSSE(r.Body)
	if err != nil || r.Status != 200 || strings.Contains(string(r.Body), "[DONE]") {
		t.Fatalf("%d %v %q", r.Status, err, r.Body)
	}
	var last map[string]any
	json.Unmarshal([]byte(events[len(events)-1].Data), &last)
	if msg, _ := last["error"].(string); msg == "" {
		t.Fatalf("no error event: %q", r.Body)
	}
	// An upstream refusal before the stream: a JSON error.
	up.Enqueue(fake.Reply{Status: 401})
	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("x")}})
	if r.Status < 400 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("upstream 401: %d %s", r.Status, r.Body)
	}
}

func TestUpstreamModerationAndDisconnect(t *testing.T) {
	ts, up := startUpstream(t)
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "mod", "moderate": true})
	up.Enqueue(fake.Reply{Flagged: true})
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "mod", "messages": []any{user("bad")}})
	if r.Status != 400 || !strings.Contains(string(r.Body), "harassment") {
		t.Fatalf("flagged: %d %s", r.Status, r.Body)
	}
	if n := up.Count(); n != 1 || !strings.HasSuffix(up.LastRequest().Path, "/moderations") {
		t.Fatalf("upstream calls %d, last %s", n, up.LastRequest().Path)
	}
	// A client that hangs up mid-stream: the run ends promptly as
	// cancelled and the thread keeps the partial answer.
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "slow"})
	up.Enqueue(fake.Reply{Text: strings.Repeat("word ", 100), ChunkDelay: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	resp := postStream(t, ctx, ts.URL+"/v1/pipes/run", admin, map[string]any{"name": "slow", "stream": true, "messages": []any{user("x")}})
	thread := resp.Header.Get("lb-thread-id")
	rd := bufio.NewReader(resp.Body)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"content":"word `) {
			break
		}
	}
	cancel()
	resp.Body.Close()
	var page struct{ Data []engine.RunRecord }
	waitFor(t, "a cancelled run record", func() bool {
		ts.RunLog.Flush()
		ts.Do("GET", "/v1/pipes/slow/runs", admin, nil).JSON(t, &page)
		return len(page.Data) == 1
	})
	if page.Data[0].Status != "cancelled" || page.Data[0].LatencyMs > 3000 {
		t.Fatalf("record %+v", page.Data[0])
	}
	var msgs []map[string]any
	ts.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 2 || !strings.HasPrefix(msgs[1]["content"].(string), "word ") || msgs[1]["metadata"].(map[string]any)["hearth_partial"] != "true" {
		t.Fatalf("thread %v", msgs)
	}
}

func TestOfflineEchoModel(t *testing.T) {
	ts := servertest.Start(t)
	r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "echo", "model": "hearth:echo",
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "lookup", "parameters": map[string]any{"type": "object"}}}}})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "echo", "messages": []any{user("say this back")}})
	var got struct {
		Completion string `json:"completion"`
	}
	r.JSON(t, &got)
	if r.Status != 200 || got.Completion != "say this back" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "echo", "stream": true, "messages": []any{user(`call_tool:lookup {"q":"x"}`)}})
	_, calls, finish, _ := assemble(decodeStream(t, r.Body))
	if finish != "tool_calls" || len(calls) != 1 || calls[0].Function.Name != "lookup" || calls[0].Function.Arguments != `{"q":"x"}` {
		t.Fatalf("echo tool call %+v %q", calls, finish)
	}
}
