package server_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

type oaiChat struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Role      string `json:"role"`
			Content   *string
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
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

type oaiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func userMsg(s string) []map[string]any { return []map[string]any{{"role": "user", "content": s}} }

// TestOpenAIChatProviderModels: both spellings of a provider model answer
// in the chat.completion shape with lb-model naming the model; tools and
// json_schema reach the model.
func TestOpenAIChatProviderModels(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	for _, model := range []string{"hearth:echo", "hearth/echo"} {
		r := ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": model, "messages": userMsg("hello there")})
		mustStatus(t, r, 200)
		var out oaiChat
		r.JSON(t, &out)
		if out.Object != "chat.completion" || len(out.Choices) != 1 || out.Choices[0].Message.Content == nil || *out.Choices[0].Message.Content != "hello there" {
			t.Fatalf("%s: %s", model, r.Body)
		}
		if got := r.Header.Get(server.HeaderModel); got != "hearth:echo" {
			t.Fatalf("%s: lb-model %q", model, got)
		}
	}
	tools := []map[string]any{{"type": "function", "function": map[string]any{"name": "get_weather", "parameters": map[string]any{"type": "object"}}}}
	r := ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "hearth:echo", "tools": tools,
		"messages": userMsg(`call_tool:get_weather {"city":"Paris"}`)})
	mustStatus(t, r, 200)
	var out oaiChat
	r.JSON(t, &out)
	if c := out.Choices[0]; c.FinishReason != "tool_calls" || len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` {
		t.Fatalf("tool call: %s", r.Body)
	}
	r = ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "hearth:echo", "messages": userMsg("hi"),
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "out", "schema": map[string]any{"type": "object"}}}})
	mustStatus(t, r, 200)
	r.JSON(t, &out)
	if c := out.Choices[0].Message.Content; c == nil || *c != `{"echo":"hi"}` {
		t.Fatalf("json_schema: %s", r.Body)
	}
}

// TestOpenAIStreamUsage: a stream ends with one usage chunk with empty
// choices only when stream_options.include_usage is set, then [DONE].
func TestOpenAIStreamUsage(t *testing.T) {
	ts := servertest.Start(t)
	for _, include := range []bool{false, true} {
		body := map[string]any{"model": "hearth:echo", "stream": true, "messages": userMsg("one two three"),
			"stream_options": map[string]any{"include_usage": include}}
		resp := postStream(t, context.Background(), ts.URL+"/openai/v1/chat/completions", servertest.AdminKey, body)
		events := readSSE(t, resp)
		if resp.Header.Get(server.HeaderModel) != "hearth:echo" {
			t.Fatalf("lb-model %q", resp.Header.Get(server.HeaderModel))
		}
		if events[len(events)-1].Data != "[DONE]" {
			t.Fatalf("no [DONE]: %+v", events)
		}
		var text strings.Builder
		usageChunks := 0
		for _, ev := range events[:len(events)-1] {
			var c struct {
				Object  string            `json:"object"`
				Choices []json.RawMessage `json:"choices"`
				Usage   *struct {
					TotalTokens int `json:"total_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal([]byte(ev.Data), &c); err != nil || c.Object != "chat.completion.chunk" {
				t.Fatalf("chunk %q: %v", ev.Data, err)
			}
			if c.Usage != nil {
				usageChunks++
				if len(c.Choices) != 0 || c.Usage.TotalTokens == 0 {
					t.Fatalf("usage chunk %s", ev.Data)
				}
			}
			for _, ch := range c.Choices {
				var d struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
				}
				json.Unmarshal(ch, &d)
				text.WriteString(d.Delta.Content)
			}
		}
		want := 0
		if include {
			want = 1
		}
		if usageChunks != want || !strings.Contains(text.String(), "three") {
			t.Fatalf("include_usage=%v: %d usage chunks, text %q", include, usageChunks, text.String())
		}
	}
}

// TestOpenAIErrors: errors on /openai/v1 take OpenAI's shape (type,
// param, code) with the matching status; the Langbase routes keep theirs.
func TestOpenAIErrors(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	cases := []struct {
		name, key string
		body      any
		status    int
		typ       string
		param     string
	}{
		{"no key", "", map[string]any{"model": "hearth:echo", "messages": userMsg("x")}, 401, "authentication_error", ""},
		{"bare model", key, map[string]any{"model": "gpt-4o", "messages": userMsg("x")}, 400, "invalid_request_error", "model"},
		{"bad temperature", key, map[string]any{"model": "hearth:echo", "messages": userMsg("x"), "temperature": 3}, 400, "invalid_request_error", "temperature"},
		{"bad role", key, map[string]any{"model": "hearth:echo", "messages": []map[string]any{{"role": "robot", "content": "x"}}}, 400, "invalid_request_error", "messages[0].role"},
		{"n=2", key, map[string]any{"model": "hearth:echo", "messages": userMsg("x"), "n": 2}, 400, "invalid_request_error", "n"},
		{"unknown pipe", key, map[string]any{"model": "pipe:nope", "messages": userMsg("x")}, 404, "not_found_error", "model"},
	}
	for _, tc := range cases {
		r := ts.Do("POST", "/openai/v1/chat/completions", tc.key, tc.body)
		var e oaiError
		if r.Status != tc.status || json.Unmarshal(r.Body, &e) != nil || e.Error.Type != tc.typ || e.Error.Message == "" || e.Error.Code == nil {
			t.Fatalf("%s: %d %s", tc.name, r.Status, r.Body)
		}
		if (tc.param == "") != (e.Error.Param == nil) || (e.Error.Param != nil && *e.Error.Param != tc.param) {
			t.Fatalf("%s: param in %s", tc.name, r.Body)
		}
	}
	if r := ts.Do("POST", "/openai/v1/chat/completions", "", nil); !strings.Contains(string(r.Body), `"type":"authentication_error"`) {
		t.Fatalf("no key: %s", r.Body)
	}
	if r := ts.Do("POST", "/v1/pipes/run", "", nil); r.Status != 401 || !strings.Contains(string(r.Body), `"code":"UNAUTHORIZED"`) {
		t.Fatalf("langbase route changed shape: %s", r.Body)
	}
}

// TestOpenAIPipeModel: pipe:<name> runs the pipe (its system prompt,
// thread storage), pipe:<owner>/<name> names the same pipe, a pipe key
// runs its own pipe only, and /models lists it.
func TestOpenAIPipeModel(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	r := ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "helper", "model": "hearth:echo",
		"messages": []map[string]any{{"role": "system", "content": "You are terse."}}})
	mustStatus(t, r, 200)
	var created struct {
		APIKey string `json:"api_key"`
	}
	r.JSON(t, &created)
	for _, model := range []string{"pipe:helper", "pipe:admin/helper"} {
		r = ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": model, "messages": userMsg("ping pong")})
		mustStatus(t, r, 200)
		var out oaiChat
		r.JSON(t, &out)
		if out.Choices[0].Message.Content == nil || *out.Choices[0].Message.Content != "ping pong" || r.Header.Get(server.HeaderThreadID) == "" {
			t.Fatalf("%s: %v %s", model, r.Header, r.Body)
		}
	}
	thread := r.Header.Get(server.HeaderThreadID)
	r = ts.Do("POST", "/openai/v1/chat/completions", created.APIKey, map[string]any{"model": "pipe:helper", "messages": userMsg("again")},
		server.HeaderThreadRequest, thread)
	mustStatus(t, r, 200)
	if r.Header.Get(server.HeaderThreadID) != thread {
		t.Fatalf("thread not continued: %v", r.Header)
	}
	r = ts.Do("GET", "/v1/threads/"+thread+"/messages", key, nil)
	mustStatus(t, r, 200)
	if n := strings.Count(string(r.Body), `"role":"user"`); n != 2 {
		t.Fatalf("thread has %d user messages: %s", n, r.Body)
	}
	if r := ts.Do("POST", "/openai/v1/chat/completions", created.APIKey, map[string]any{"model": "hearth:echo", "messages": userMsg("x")}); r.Status != 403 {
		t.Fatalf("pipe key on a provider model: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "pipe:other/helper", "messages": userMsg("x")}); r.Status != 404 {
		t.Fatalf("another owner's pipe: %d %s", r.Status, r.Body)
	}
	r = ts.Do("GET", "/openai/v1/models", key, nil)
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.Body), `"id":"pipe:helper"`) || !strings.Contains(string(r.Body), `"id":"hearth:echo"`) ||
		strings.Contains(string(r.Body), `"id":"openai:`) {
		t.Fatalf("models: %s", r.Body)
	}
	if r := ts.Do("GET", "/openai/v1/models/hearth/echo", key, nil); r.Status != 200 || !strings.Contains(string(r.Body), `"id":"hearth:echo"`) {
		t.Fatalf("model by id: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("GET", "/openai/v1/models/openai:gpt-4o", key, nil); r.Status != 404 || !strings.Contains(string(r.Body), `"model_not_found"`) {
		t.Fatalf("unknown model: %d %s", r.Status, r.Body)
	}
}

// TestOpenAIEmbeddings: float and base64 (little-endian float32) give the
// same vectors; a string input is one vector.
func TestOpenAIEmbeddings(t *testing.T) {
	ts := servertest.Start(t)
	var floats, b64 struct {
		Object string `json:"object"`
		Data   []struct {
			Index     int             `json:"index"`
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
	}
	r := ts.Do("POST", "/openai/v1/embeddings", servertest.AdminKey, map[string]any{"model": "hearth:hash-embed", "input": []string{"owls", "bees"}})
	mustStatus(t, r, 200)
	r.JSON(t, &floats)
	r = ts.Do("POST", "/openai/v1/embeddings", servertest.AdminKey, map[string]any{"model": "hearth/hash-embed", "input": []string{"owls", "bees"}, "encoding_format": "base64"})
	mustStatus(t, r, 200)
	r.JSON(t, &b64)
	if len(floats.Data) != 2 || len(b64.Data) != 2 || floats.Object != "list" {
		t.Fatalf("%+v %+v", floats, b64)
	}
	for i := range floats.Data {
		var want []float32
		var s string
		json.Unmarshal(floats.Data[i].Embedding, &want)
		json.Unmarshal(b64.Data[i].Embedding, &s)
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(raw) != 4*len(want) || len(want) == 0 {
			t.Fatalf("base64 %d: %v %d vs %d", i, err, len(raw), len(want))
		}
		for j := range want {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])); got != want[j] {
				t.Fatalf("vector %d[%d]: %v != %v", i, j, got, want[j])
			}
		}
	}
	r = ts.Do("POST", "/openai/v1/embeddings", servertest.AdminKey, map[string]any{"model": "hearth:hash-embed", "input": "one", "dimensions": 8})
	if r.Status != 400 || !strings.Contains(string(r.Body), `"param":"dimensions"`) {
		t.Fatalf("dimensions: %d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/openai/v1/embeddings", servertest.AdminKey, map[string]any{"model": "hearth:hash-embed", "input": []string{"ok", ""}})
	if r.Status != 400 || !strings.Contains(string(r.Body), `"param":"input[1]"`) {
		t.Fatalf("empty input: %d %s", r.Status, r.Body)
	}
}

// TestOpenAIModerations: each input gets its own result.
func TestOpenAIModerations(t *testing.T) {
	ts := servertest.Start(t)
	r := ts.Do("POST", "/openai/v1/moderations", servertest.AdminKey, map[string]any{"model": "hearth:moderation", "input": []string{"fine", "bad [flag]"}})
	mustStatus(t, r, 200)
	var out struct {
		Results []struct {
			Flagged    bool            `json:"flagged"`
			Categories map[string]bool `json:"categories"`
		} `json:"results"`
	}
	r.JSON(t, &out)
	if len(out.Results) != 2 || out.Results[0].Flagged || !out.Results[1].Flagged || !out.Results[1].Categories["test"] {
		t.Fatalf("%s", r.Body)
	}
}

// readSSE reads a whole SSE answer.
func readSSE(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	events, err := parseSSE(b)
	if err != nil || len(events) == 0 {
		t.Fatalf("parse %q: %v", b, err)
	}
	return events
}
