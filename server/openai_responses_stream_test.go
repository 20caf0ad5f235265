package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/servertest"
)

// respStreamEvent is one decoded event of a streamed response.
type respStreamEvent struct {
	Event string
	Type  string          `json:"type"`
	Seq   int             `json:"sequence_number"`
	Delta string          `json:"delta"`
	Text  string          `json:"text"`
	Args  string          `json:"arguments"`
	Index *int            `json:"output_index"`
	Resp  *oaiResponse    `json:"response"`
	Item  *oaiItem        `json:"item"`
	Raw   json.RawMessage `json:"-"`
}

// streamResponseEvents posts a streamed Responses request and decodes
// every event, checking that each event: line names its data's type and
// that sequence numbers count from 0.
func streamResponseEvents(t *testing.T, ts *servertest.Server, key string, body map[string]any) []respStreamEvent {
	t.Helper()
	return streamResponseEventsWith(t, ts, key, body)
}

// streamResponseEventsWith is streamResponseEvents with request headers
// (name, value pairs).
func streamResponseEventsWith(t *testing.T, ts *servertest.Server, key string, body map[string]any, headers ...string) []respStreamEvent {
	t.Helper()
	body["stream"] = true
	resp := postStream(t, context.Background(), ts.URL+"/openai/v1/responses", key, body, headers...)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	var out []respStreamEvent
	for i, e := range readSSE(t, resp) {
		var ev respStreamEvent
		if err := json.Unmarshal([]byte(e.Data), &ev); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, e.Data)
		}
		ev.Event, ev.Raw = e.Event, json.RawMessage(e.Data)
		if ev.Event != ev.Type || ev.Seq != i {
			t.Fatalf("event %d: event %q, type %q, sequence_number %d", i, ev.Event, ev.Type, ev.Seq)
		}
		out = append(out, ev)
	}
	return out
}

func eventTypes(evs []respStreamEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, strings.TrimPrefix(e.Type, "response."))
	}
	return out
}

// TestResponsesStreamEvents: the exact event sequence of a streamed text
// answer and of a streamed function call, the final response with usage,
// and the stored response equal to the completed one.
func TestResponsesStreamEvents(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	evs := streamResponseEvents(t, ts, key, map[string]any{"model": "hearth:echo", "input": "one two"})
	want := []string{"created", "in_progress", "output_item.added", "content_part.added", "output_text.delta", "output_text.delta",
		"output_text.done", "content_part.done", "output_item.done", "completed"}
	if got := eventTypes(evs); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	if evs[0].Resp.Status != "in_progress" || len(evs[0].Resp.Output) != 0 || evs[4].Delta+evs[5].Delta != "one two" || evs[6].Text != "one two" {
		t.Fatalf("events: %s %s %s", evs[0].Raw, evs[4].Raw, evs[6].Raw)
	}
	done := evs[len(evs)-1].Resp
	if done.Status != "completed" || done.text() != "one two" || done.Usage == nil || done.Usage.OutputTokens != 2 || done.Usage.TotalTokens == 0 ||
		evs[8].Item.Status != "completed" || evs[8].Item.Content[0].Text != "one two" || *evs[8].Index != 0 {
		t.Fatalf("completed: %s", evs[len(evs)-1].Raw)
	}
	g := ts.Do("GET", "/openai/v1/responses/"+done.ID, key, nil)
	mustStatus(t, g, 200)
	var stored json.RawMessage
	json.Unmarshal(evs[len(evs)-1].Raw, &struct {
		Response *json.RawMessage `json:"response"`
	}{&stored})
	if strings.TrimSpace(string(g.Body)) != string(stored) {
		t.Fatalf("stored response differs from the completed one:\n%s\n%s", g.Body, stored)
	}

	tools := []map[string]any{{"type": "function", "name": "get_weather", "parameters": map[string]any{"type": "object"}}}
	evs = streamResponseEvents(t, ts, key, map[string]any{"model": "hearth:echo", "input": `call_tool:get_weather {"city":"Oslo"}`, "tools": tools})
	// The echo model streams the arguments in two halves; each is a delta.
	want = []string{"created", "in_progress", "output_item.added", "function_call_arguments.delta", "function_call_arguments.delta",
		"function_call_arguments.done", "output_item.done", "completed"}
	if got := eventTypes(evs); !slices.Equal(got, want) {
		t.Fatalf("call events:\n got %v\nwant %v", got, want)
	}
	if evs[2].Item.Type != "function_call" || evs[2].Item.Name != "get_weather" || evs[2].Item.Arguments != "" ||
		evs[3].Delta+evs[4].Delta != `{"city":"Oslo"}` || evs[5].Args != `{"city":"Oslo"}` || evs[6].Item.Arguments != `{"city":"Oslo"}` {
		t.Fatalf("call events: %s %s %s", evs[2].Raw, evs[5].Raw, evs[6].Raw)
	}
	call := evs[len(evs)-1].Resp.Output[0]
	// The second turn streams on the stored conversation.
	evs = streamResponseEvents(t, ts, key, map[string]any{"model": "hearth:echo", "previous_response_id": evs[len(evs)-1].Resp.ID, "tools": tools,
		"input": []map[string]any{{"type": "function_call_output", "call_id": call.CallID, "output": "cold"}}})
	if got := evs[len(evs)-1].Resp.text(); got != "tool result: cold" {
		t.Fatalf("turn two: %q", got)
	}
}

// TestResponsesStreamFailed: an upstream that fails after the stream
// started ends it with response.failed carrying the error; nothing is stored.
func TestResponsesStreamFailed(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"partial"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		fmt.Fprint(w, `data: {"error":{"message":"upstream broke","type":"server_error"}}`+"\n\n")
	}))
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.URL+"/v1", "sk-test"))
	evs := streamResponseEvents(t, ts, servertest.AdminKey, map[string]any{"model": "openai:gpt-4o-mini", "input": "x"})
	last := evs[len(evs)-1]
	if last.Type != "response.failed" || last.Resp.Status != "failed" || last.Resp.Error == nil || last.Resp.Error.Message == "" {
		t.Fatalf("events %v, last %s", eventTypes(evs), last.Raw)
	}
	if g := ts.Do("GET", "/openai/v1/responses/"+last.Resp.ID, servertest.AdminKey, nil); g.Status != 404 {
		t.Fatalf("a failed response is not stored: %d %s", g.Status, g.Body)
	}
}

// TestResponsesStreamNotHeldBack: each delta reaches the client as the
// upstream sends it. The fake upstream sends its first chunk and waits
// until the client has seen that chunk's delta before it sends the next.
func TestResponsesStreamNotHeldBack(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			f := "null"
			if finish != "" {
				f = `"` + finish + `"`
			}
			fmt.Fprintf(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s}]}`+"\n\n", delta, f)
			w.(http.Flusher).Flush()
		}
		chunk("Hello", "")
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		chunk(" world", "stop")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":2},"completion_tokens_details":{"reasoning_tokens":1}}}`+"\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.URL+"/v1", "sk-test"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp := postStream(t, ctx, ts.URL+"/openai/v1/responses", servertest.AdminKey, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stream": true})
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	var seen []string
	released := false
	for {
		line, err := rd.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read after %v (released %v): %v", seen, released, err)
		}
		data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: ")
		if !ok {
			continue
		}
		var ev respStreamEvent
		json.Unmarshal([]byte(data), &ev)
		seen = append(seen, ev.Type+":"+ev.Delta)
		if ev.Type == "response.output_text.delta" && ev.Delta == "Hello" {
			if released {
				t.Fatal("the first delta came twice")
			}
			released = true
			close(release) // the upstream sends the second chunk only now
		}
		if ev.Type == "response.completed" {
			u := ev.Resp.Usage
			if ev.Resp.text() != "Hello world" || u.InputTokensDetails.CachedTokens != 2 || u.OutputTokensDetails.ReasoningTokens != 1 || u.TotalTokens != 5 {
				t.Fatalf("completed: %s", data)
			}
		}
	}
	if !released || !slices.Contains(seen, "response.output_text.delta: world") || !slices.Contains(seen, "response.completed:") {
		t.Fatalf("events: %v", seen)
	}
}

// TestResponsesStreamThreadHeader: a streamed response that starts a
// conversation names its thread in lb-thread-id before the first event;
// the stored response is in that thread.
func TestResponsesStreamThreadHeader(t *testing.T) {
	ts := servertest.Start(t)
	resp := postStream(t, context.Background(), ts.URL+"/openai/v1/responses", servertest.AdminKey,
		map[string]any{"model": "hearth:echo", "input": "thread me", "stream": true})
	thread := resp.Header.Get("lb-thread-id")
	events := readSSE(t, resp)
	var done respStreamEvent
	json.Unmarshal([]byte(events[len(events)-1].Data), &done)
	g := ts.Do("GET", "/openai/v1/responses/"+done.Resp.ID, servertest.AdminKey, nil)
	if thread == "" || g.Header.Get("lb-thread-id") != thread {
		t.Fatalf("stream header %q, stored in %q", thread, g.Header.Get("lb-thread-id"))
	}
	var msgs []struct {
		Content string `json:"content"`
	}
	ts.Do("GET", "/v1/threads/"+thread+"/messages", servertest.AdminKey, nil).JSON(t, &msgs)
	if len(msgs) != 2 || msgs[0].Content != "thread me" {
		t.Fatalf("thread: %+v", msgs)
	}
}

// TestResponsesStreamCallArgs: a function call's arguments reach the
// client delta by delta as the upstream streams them, in the exact event
// order, for two calls in a row. The fake upstream sends each piece only
// after the client has seen the previous one as a
// response.function_call_arguments.delta, so a held-back delta hangs
// the test instead of passing it.
func TestResponsesStreamCallArgs(t *testing.T) {
	seen := make(chan string)
	pieces := [][3]string{{"0", "call_a", `{"city":`}, {"0", "", `"Oslo"}`}, {"1", "call_b", `{"city":`}, {"1", "", `"Rome"}`}}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range pieces {
			head := ""
			if p[1] != "" {
				head = fmt.Sprintf(`"id":%q,"type":"function","function":{"name":"get_weather","arguments":%q}`, p[1], p[2])
			} else {
				head = fmt.Sprintf(`"function":{"arguments":%q}`, p[2])
			}
			fmt.Fprintf(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%s,%s}]},"finish_reason":null}]}`+"\n\n", p[0], head)
			w.(http.Flusher).Flush()
			select {
			case got := <-seen:
				if got != p[2] {
					return
				}
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.URL+"/v1", "sk-test"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tools := []map[string]any{{"type": "function", "name": "get_weather", "parameters": map[string]any{"type": "object"}}}
	resp := postStream(t, ctx, ts.URL+"/openai/v1/responses", servertest.AdminKey, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "stream": true, "tools": tools})
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	var got []string
	var last respStreamEvent
	for {
		line, err := rd.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read after %v: %v", got, err)
		}
		data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: ")
		if !ok {
			continue
		}
		var ev respStreamEvent
		json.Unmarshal([]byte(data), &ev)
		ev.Raw = json.RawMessage(data)
		name := strings.TrimPrefix(ev.Type, "response.")
		switch ev.Type {
		case "response.function_call_arguments.delta":
			name += " " + ev.Delta
			seen <- ev.Delta // the upstream sends the next piece only now
		case "response.function_call_arguments.done":
			name += " " + ev.Args
		case "response.output_item.added", "response.output_item.done":
			name += " " + ev.Item.CallID
		}
		got = append(got, name)
		last = ev
	}
	want := []string{"created", "in_progress",
		"output_item.added call_a", `function_call_arguments.delta {"city":`, `function_call_arguments.delta "Oslo"}`,
		`function_call_arguments.done {"city":"Oslo"}`, "output_item.done call_a",
		"output_item.added call_b", `function_call_arguments.delta {"city":`, `function_call_arguments.delta "Rome"}`,
		`function_call_arguments.done {"city":"Rome"}`, "output_item.done call_b", "completed"}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n got %q\nwant %q", got, want)
	}
	if out := last.Resp.Output; len(out) != 2 || out[0].Arguments != `{"city":"Oslo"}` || out[1].Arguments != `{"city":"Rome"}` || out[1].CallID != "call_b" {
		t.Fatalf("completed: %s", last.Raw)
	}
}
