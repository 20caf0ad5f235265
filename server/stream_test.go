package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// decodeStream parses an SSE run body and checks the invariants of the
// SDK's stream runner: every event is terminated by CRLF CRLF, the data is
// a chunk until a final [DONE], ids are constant, role comes first, the
// last choice chunk carries finish_reason. It returns the chunks.
func decodeStream(t *testing.T, body []byte) []engine.ChatChunk {
	t.Helper()
	events, err := parseSSE(body)
	if err != nil {
		t.Fatalf("%v in %q", err, body)
	}
	if !strings.HasSuffix(string(body), "data: [DONE]\r\n\r\n") {
		t.Fatalf("stream does not end with [DONE] and a CRLF blank line: %q", body)
	}
	if n := strings.Count(string(body), "\r\n\r\n"); n != len(events) {
		t.Fatalf("%d events but %d CRLF terminators: %q", len(events), n, body)
	}
	if strings.Contains(strings.ReplaceAll(string(body), "\r\n\r\n", ""), "\n") {
		t.Fatalf("stray newlines: %q", body)
	}
	if len(events) < 2 || events[len(events)-1].Data != "[DONE]" {
		t.Fatalf("events %+v", events)
	}
	var chunks []engine.ChatChunk
	for _, ev := range events[:len(events)-1] {
		if ev.Event != "" {
			t.Fatalf("named event %q", ev.Event)
		}
		var c engine.ChatChunk
		if err := json.Unmarshal([]byte(ev.Data), &c); err != nil {
			t.Fatalf("chunk %q: %v", ev.Data, err)
		}
		var raw map[string]any
		json.Unmarshal([]byte(ev.Data), &raw)
		if _, ok := raw["choices"].([]any); !ok {
			t.Fatalf("chunk without a choices array: %s", ev.Data)
		}
		chunks = append(chunks, c)
	}
	checkChunks(t, chunks)
	return chunks
}

func checkChunks(t *testing.T, chunks []engine.ChatChunk) {
	t.Helper()
	firstChoice := true
	var lastFinish *string
	for i, c := range chunks {
		if c.ID != chunks[0].ID || c.ID == "" || c.Object != "chat.completion.chunk" || c.Created != chunks[0].Created {
			t.Fatalf("chunk %d: id/object/created not constant: %+v", i, c)
		}
		for _, ch := range c.Choices {
			if firstChoice && ch.Delta.Role != "assistant" {
				t.Fatalf("first delta has no role: %+v", ch.Delta)
			}
			if !firstChoice && ch.Delta.Role != "" {
				t.Fatalf("role repeated in chunk %d", i)
			}
			if lastFinish != nil {
				t.Fatalf("choice chunk after finish_reason (chunk %d)", i)
			}
			firstChoice = false
			if ch.FinishReason != nil {
				lastFinish = ch.FinishReason
			}
		}
	}
	if lastFinish == nil {
		t.Fatal("no finish_reason")
	}
}

// assemble rebuilds text, tool calls and finish reason like the SDK's runner.
func assemble(chunks []engine.ChatChunk) (string, []engine.ToolCall, string, *engine.Usage) {
	var text strings.Builder
	calls := map[int]*engine.ToolCall{}
	var order []int
	finish := ""
	var usage *engine.Usage
	for _, c := range chunks {
		if c.Usage != nil {
			usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				text.WriteString(*ch.Delta.Content)
			}
			for _, d := range ch.Delta.ToolCalls {
				tc, ok := calls[*d.Index]
				if !ok {
					tc = &engine.ToolCall{}
					calls[*d.Index] = tc
					order = append(order, *d.Index)
				}
				if d.ID != "" {
					tc.ID = d.ID
				}
				if d.Type != "" {
					tc.Type = d.Type
				}
				tc.Function.Name += d.Function.Name
				tc.Function.Arguments += d.Function.Arguments
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	var out []engine.ToolCall
	for _, i := range order {
		out = append(out, *calls[i])
	}
	return text.String(), out, finish, usage
}

func TestStreamSSEFormat(t *testing.T) {
	e := startEnv(t)
	key := e.createPipe(t, admin, map[string]any{"name": "p", "stream": false})
	e.llm.enqueue(fakeReply{Text: "Hello there, streaming world."})
	resp := postStream(t, t.Context(), e.URL+"/v1/pipes/run", key, map[string]any{"stream": true, "messages": []any{user("hi")}})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
	}
	thread := resp.Header.Get("lb-thread-id")
	if !uuidRE.MatchString(thread) {
		t.Fatalf("lb-thread-id %q", thread)
	}
	chunks := decodeStream(t, body)
	text, calls, finish, usage := assemble(chunks)
	if text != "Hello there, streaming world." || calls != nil || finish != "stop" || usage == nil || usage.TotalTokens != 17 {
		t.Fatalf("text %q calls %v finish %q usage %+v", text, calls, finish, usage)
	}
	// The thread got the request and the whole answer.
	var msgs []map[string]any
	e.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 2 || msgs[1]["content"] != "Hello there, streaming world." || len(msgs[1]["metadata"].(map[string]any)) != 0 {
		t.Fatalf("thread %v", msgs)
	}
	e.RunLog.Flush()
	var page struct{ Data []engine.RunRecord }
	e.Do("GET", "/v1/runs", admin, nil).JSON(t, &page)
	if r := page.Data[0]; !r.Stream || r.Status != "success" || r.TotalTokens != 17 || r.FirstTokenMs == nil {
		t.Fatalf("record %+v", r)
	}
}

func TestStreamToolCallDeltas(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	calls := []engine.ToolCall{
		{ID: "call_1", Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: `{"loc":"SF"}`}},
		{ID: "call_2", Type: "function", Function: engine.FunctionCall{Name: "t2", Arguments: `{}`}},
	}
	for _, sloppy := range []bool{false, true} {
		e.llm.enqueue(fakeReply{ToolCalls: calls, Sloppy: sloppy})
		r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("weather")},
			"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}}})
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		chunks := decodeStream(t, r.Body)
		text, got, finish, _ := assemble(chunks)
		if text != "" || finish != "tool_calls" || !reflect.DeepEqual(got, calls) {
			t.Fatalf("sloppy=%v: text %q finish %q calls %+v", sloppy, text, finish, got)
		}
		var msgs []map[string]any
		e.Do("GET", "/v1/threads/"+r.Header.Get("lb-thread-id")+"/messages", admin, nil).JSON(t, &msgs)
		if len(msgs) != 2 || msgs[1]["content"] != nil || len(msgs[1]["tool_calls"].([]any)) != 2 {
			t.Fatalf("thread %v", msgs)
		}
	}
}

func TestStreamSloppyUpstreamIsNormalised(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	e.llm.enqueue(fakeReply{Text: "a b c", Sloppy: true})
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("x")}})
	chunks := decodeStream(t, r.Body)
	if text, _, finish, _ := assemble(chunks); text != "a b c" || finish != "stop" {
		t.Fatalf("text %q finish %q", text, finish)
	}
	// An upstream that sends nothing at all still yields a valid stream.
	e.llm.enqueue(fakeReply{Text: "", Sloppy: true})
	r = e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("x")}})
	if chunks := decodeStream(t, r.Body); len(chunks) != 1 {
		t.Fatalf("empty stream chunks %+v", chunks)
	}
}

func TestStreamErrors(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	// Before the first byte: a normal JSON error with its status.
	e.llm.enqueue(fakeReply{Err: engine.Errorf(engine.CodeRateLimited, "openai: rate limited")})
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("x")}})
	if r.Status != 429 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// After it: an error event, no [DONE], end of body.
	e.llm.enqueue(fakeReply{Text: "one two three four", FailAfter: 2})
	r = e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("x")}})
	events, err := parseSSE(r.Body)
	if err != nil || r.Status != 200 {
		t.Fatalf("%d %v %q", r.Status, err, r.Body)
	}
	last := events[len(events)-1]
	var ev map[string]any
	json.Unmarshal([]byte(last.Data), &ev)
	if ev["error"] != "openai: upstream connection reset" || strings.Contains(string(r.Body), "[DONE]") {
		t.Fatalf("error event %q", r.Body)
	}
	// The thread keeps the partial answer, marked.
	var msgs []map[string]any
	e.Do("GET", "/v1/threads/"+r.Header.Get("lb-thread-id")+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 2 || msgs[1]["content"] != "one two " {
		t.Fatalf("partial %v", msgs)
	}
	md := msgs[1]["metadata"].(map[string]any)
	if md["hearth_partial"] != "true" || !strings.Contains(md["hearth_note"].(string), "upstream connection reset") {
		t.Fatalf("metadata %v", md)
	}
	e.RunLog.Flush()
	var page struct{ Data []engine.RunRecord }
	e.Do("GET", "/v1/runs", admin, nil).JSON(t, &page)
	if page.Data[0].Status != "error" || page.Data[1].Status != "error" {
		t.Fatalf("records %+v", page.Data)
	}
}

func TestStreamClientDisconnectCancelsUpstream(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	e.llm.enqueue(fakeReply{Text: "partial answer that never ends", Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	resp := postStream(t, ctx, e.URL+"/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("x")}})
	thread := resp.Header.Get("lb-thread-id")
	// Read until the first content arrives, then hang up.
	rd := bufio.NewReader(resp.Body)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"content":"partial `) {
			break
		}
	}
	cancel()
	resp.Body.Close()
	select {
	case <-e.llm.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream call was not cancelled")
	}
	var msgs []map[string]any
	waitFor(t, "the partial answer in the thread", func() bool {
		// The thread is written when the run finishes, just after the cancel.
		r := e.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil)
		if r.Status != 200 {
			return false
		}
		r.JSON(t, &msgs)
		return len(msgs) == 2
	})
	md := msgs[1]["metadata"].(map[string]any)
	if msgs[1]["content"] != "partial " || md["hearth_partial"] != "true" || md["hearth_note"] != "client disconnected" {
		t.Fatalf("thread %v", msgs)
	}
	e.RunLog.Flush()
	var page struct{ Data []engine.RunRecord }
	waitFor(t, "the run record", func() bool {
		e.RunLog.Flush()
		e.Do("GET", "/v1/runs", admin, nil).JSON(t, &page)
		return len(page.Data) == 1
	})
	if page.Data[0].Status != "cancelled" {
		t.Fatalf("record %+v", page.Data[0])
	}
}

func TestStreamFlushesEachChunk(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	e.llm.enqueue(fakeReply{Text: "first second", Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp := postStream(t, ctx, e.URL+"/v1/pipes/run", admin, map[string]any{"name": "p", "stream": true, "messages": []any{user("x")}})
	defer resp.Body.Close()
	// The first content chunk arrives while the upstream is still open.
	done := make(chan string, 1)
	go func() {
		rd := bufio.NewReader(resp.Body)
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				done <- "error: " + err.Error()
				return
			}
			if strings.Contains(line, `"content":"first `) {
				done <- "ok"
				return
			}
		}
	}()
	select {
	case got := <-done:
		if got != "ok" {
			t.Fatal(got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("chunk was not flushed")
	}
}
