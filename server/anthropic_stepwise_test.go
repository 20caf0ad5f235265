package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/servertest"
)

// stepFrame is one SSE frame a lockstep upstream sends; a frame with wait
// set is a delta the client must see as its own event before the next
// frame is sent.
type stepFrame struct {
	data string
	wait bool
}

// stepUpstream is an upstream that sends its frames one at a time and,
// after each delta frame, waits until the client has read the event that
// delta became: a delta Hearth held back (to merge it with the next)
// stalls the stream and fails the test. It records each request's body.
type stepUpstream struct {
	*httptest.Server
	ack    chan struct{}
	mu     sync.Mutex
	frames [][]stepFrame
	bodies [][]byte
}

// stepWait bounds how long the upstream waits for the client to see a
// delta: long enough for a loaded machine, and only reached when the
// delta was held back.
const stepWait = 20 * time.Second

func newStepUpstream(t *testing.T) *stepUpstream {
	u := &stepUpstream{ack: make(chan struct{})}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		body.ReadFrom(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, body.Bytes())
		var frames []stepFrame
		if len(u.frames) > 0 {
			frames, u.frames = u.frames[0], u.frames[1:]
		}
		u.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range frames {
			fmt.Fprint(w, f.data, "\n\n")
			w.(http.Flusher).Flush()
			if !f.wait {
				continue
			}
			select {
			case <-u.ack:
			case <-time.After(stepWait):
				t.Errorf("the delta %s was not relayed before the next one came", f.data)
				return
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(u.Close)
	return u
}

// script queues the frames of the next answer.
func (u *stepUpstream) script(frames ...stepFrame) {
	u.mu.Lock()
	u.frames = append(u.frames, frames)
	u.mu.Unlock()
}

// lastBody is the body of the latest request.
func (u *stepUpstream) lastBody() map[string]any {
	u.mu.Lock()
	defer u.mu.Unlock()
	var m map[string]any
	json.Unmarshal(u.bodies[len(u.bodies)-1], &m)
	return m
}

// streamStepwise posts a streamed Messages request to ts and reads its
// events as they come, acknowledging each content_block_delta to up.
func streamStepwise(t *testing.T, ts *servertest.Server, up *stepUpstream, body map[string]any) []msgEvent {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", ts.URL+"/anthropic/v1/messages", bytes.NewReader(b))
	req.Header.Set("x-api-key", admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		var e bytes.Buffer
		e.ReadFrom(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, e.String())
	}
	var evs []msgEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		evs = append(evs, msgEvent{Name: d["type"].(string), Data: d})
		if d["type"] == "content_block_delta" {
			select {
			case up.ack <- struct{}{}:
			case <-time.After(stepWait):
				t.Fatalf("the upstream did not wait for event %s", line)
			}
		}
	}
	return evs
}

func stepSSE(event string, v any) stepFrame {
	b, _ := json.Marshal(v)
	if event == "" {
		return stepFrame{data: "data: " + string(b)}
	}
	return stepFrame{data: "event: " + event + "\ndata: " + string(b)}
}

func heldDelta(f stepFrame) stepFrame { f.wait = true; return f }

// antFrame is one Anthropic stream event.
func antFrame(typ string, kv ...any) stepFrame {
	v := map[string]any{"type": typ}
	for i := 0; i+1 < len(kv); i += 2 {
		v[kv[i].(string)] = kv[i+1]
	}
	f := stepSSE(typ, v)
	f.wait = typ == "content_block_delta"
	return f
}

// oaiFrame is one chat completion chunk with delta d (and finish).
func oaiFrame(d map[string]any, finish any) stepFrame {
	return stepSSE("", map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}})
}

func oaiArgs(s string) map[string]any {
	return map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": s}}}}
}

// TestMessagesStreamDeltasLockstep: every upstream delta (tool arguments,
// Anthropic thinking and signature, DeepSeek reasoning_content) goes out
// as its own Messages delta before the upstream sends the next, in the
// exact event order of the Messages API; the thinking block, streamed
// first, comes back with its signature on the next turn.
func TestMessagesStreamDeltasLockstep(t *testing.T) {
	ant := newStepUpstream(t)
	oai := newStepUpstream(t)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", ant.URL, "sk-ant"), servertest.WithProvider("deepseek", oai.URL, "sk-ds"))
	args := []string{`{"ci`, `ty":"Ly`, `on"}`}

	ant.script(
		antFrame("message_start", "message", map[string]any{"id": "msg_up", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 9, "output_tokens": 1}}),
		antFrame("content_block_start", "index", 0, "content_block", map[string]any{"type": "thinking", "thinking": "", "signature": ""}),
		antFrame("content_block_delta", "index", 0, "delta", map[string]any{"type": "thinking_delta", "thinking": "The user "}),
		antFrame("content_block_delta", "index", 0, "delta", map[string]any{"type": "thinking_delta", "thinking": "wants Lyon."}),
		antFrame("content_block_delta", "index", 0, "delta", map[string]any{"type": "signature_delta", "signature": "sig-abc"}),
		antFrame("content_block_stop", "index", 0),
		antFrame("content_block_start", "index", 1, "content_block", map[string]any{"type": "tool_use", "id": "toolu_7", "name": "get_weather", "input": map[string]any{}}),
		antFrame("content_block_delta", "index", 1, "delta", map[string]any{"type": "input_json_delta", "partial_json": args[0]}),
		antFrame("content_block_delta", "index", 1, "delta", map[string]any{"type": "input_json_delta", "partial_json": args[1]}),
		antFrame("content_block_delta", "index", 1, "delta", map[string]any{"type": "input_json_delta", "partial_json": args[2]}),
		antFrame("content_block_stop", "index", 1),
		antFrame("message_delta", "delta", map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage", map[string]any{"output_tokens": 30}),
		antFrame("message_stop"),
	)
	body := msgReq("claude-sonnet-4-5", "Weather in Lyon?", "stream", true, "tools", []any{weatherTool},
		"thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}, "max_tokens", 4096)
	evs := streamStepwise(t, ts, ant, body)
	want := "message_start ping content_block_start:thinking content_block_delta:thinking_delta content_block_delta:thinking_delta " +
		"content_block_delta:signature_delta content_block_stop content_block_start:tool_use content_block_delta:input_json_delta " +
		"content_block_delta:input_json_delta content_block_delta:input_json_delta content_block_stop message_delta message_stop"
	if got := strings.Join(eventNames(evs), " "); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if deltaText(evs, 0, "thinking") != "The user wants Lyon." || deltaText(evs, 0, "signature") != "sig-abc" || deltaText(evs, 1, "partial_json") != `{"city":"Lyon"}` {
		t.Fatalf("deltas: %v", evs)
	}
	toolID := evs[7].Data["content_block"].(map[string]any)["id"].(string)

	// The next turn sends the thinking block back, signed, before the
	// tool call it preceded.
	ant.script(
		antFrame("message_start", "message", map[string]any{"id": "msg_up2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 9, "output_tokens": 1}}),
		antFrame("content_block_start", "index", 0, "content_block", map[string]any{"type": "text", "text": ""}),
		antFrame("content_block_delta", "index", 0, "delta", map[string]any{"type": "text_delta", "text": "Sunny."}),
		antFrame("content_block_stop", "index", 0),
		antFrame("message_delta", "delta", map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage", map[string]any{"output_tokens": 3}),
		antFrame("message_stop"),
	)
	body["messages"] = []any{body["messages"].([]any)[0],
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": "The user wants Lyon.", "signature": "sig-abc"},
			map[string]any{"type": "tool_use", "id": toolID, "name": "get_weather", "input": map[string]any{"city": "Lyon"}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": toolID, "content": "sunny"}}}}
	streamStepwise(t, ts, ant, body)
	sent := ant.lastBody()["messages"].([]any)[1].(map[string]any)["content"].([]any)
	if got := mustJSON(t, sent[0]); got != `{"signature":"sig-abc","thinking":"The user wants Lyon.","type":"thinking"}` || sent[1].(map[string]any)["type"] != "tool_use" {
		t.Fatalf("assistant turn sent back: %s", mustJSON(t, sent))
	}

	// An OpenAI-shaped provider: reasoning_content pieces are thinking
	// deltas (no signature), then text, then the tool call's arguments.
	oai.script(
		oaiFrame(map[string]any{"role": "assistant", "content": ""}, nil),
		heldDelta(oaiFrame(map[string]any{"reasoning_content": "Lyon "}, nil)),
		heldDelta(oaiFrame(map[string]any{"reasoning_content": "weather."}, nil)),
		heldDelta(oaiFrame(map[string]any{"content": "Checking."}, nil)),
		oaiFrame(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": "get_weather", "arguments": ""}}}}, nil),
		heldDelta(oaiFrame(oaiArgs(args[0]), nil)),
		heldDelta(oaiFrame(oaiArgs(args[1]), nil)),
		heldDelta(oaiFrame(oaiArgs(args[2]), nil)),
		oaiFrame(map[string]any{}, "tool_calls"),
		stepSSE("", map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": 9, "completion_tokens": 20, "total_tokens": 29}}),
		stepFrame{data: "data: [DONE]"},
	)
	evs = streamStepwise(t, ts, oai, msgReq("deepseek:deepseek-v4-flash", "Weather in Lyon?", "stream", true, "tools", []any{weatherTool}))
	want = "message_start ping content_block_start:thinking content_block_delta:thinking_delta content_block_delta:thinking_delta content_block_stop " +
		"content_block_start:text content_block_delta:text_delta content_block_stop content_block_start:tool_use content_block_delta:input_json_delta " +
		"content_block_delta:input_json_delta content_block_delta:input_json_delta content_block_stop message_delta message_stop"
	if got := strings.Join(eventNames(evs), " "); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if deltaText(evs, 0, "thinking") != "Lyon weather." || deltaText(evs, 2, "partial_json") != `{"city":"Lyon"}` {
		t.Fatalf("deltas: %v", evs)
	}
}
