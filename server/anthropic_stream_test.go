package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMessagesStreamEventOrder: a streamed answer is the Messages event
// sequence exactly: message_start, ping, one block per text run and per
// tool call, thinking blocks (first, where the model thought) with their
// thinking and signature deltas,
// message_delta with the stop reason and usage (cache reads and writes
// apart), message_stop. The text and the tool input rebuild whole.
func TestMessagesStreamEventOrder(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-ant"))

	up.Enqueue(fake.Reply{Text: "Hello from the upstream", Usage: fake.Usage{PromptTokens: 7, CompletionTokens: 4, CacheReadTokens: 100, CacheCreationTokens: 20}})
	r := postMessages(ts, admin, msgReq("claude-sonnet-4-5", "hi", "stream", true))
	mustStatus(t, r, 200)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	evs := parseMsgEvents(t, r.Body)
	want := "message_start ping content_block_start:text content_block_delta:text_delta content_block_stop message_delta message_stop"
	if got := compact(eventNames(evs)); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if got := deltaText(evs, 0, "text"); got != "Hello from the upstream" {
		t.Fatalf("text %q", got)
	}
	md := evs[len(evs)-2].Data
	if mustJSON(t, md["delta"]) != `{"stop_reason":"end_turn","stop_sequence":null}` ||
		mustJSON(t, md["usage"]) != `{"cache_creation_input_tokens":20,"cache_read_input_tokens":100,"input_tokens":7,"output_tokens":4}` {
		t.Fatalf("message_delta %v", md)
	}
	if msg := evs[0].Data["message"].(map[string]any); msg["model"] != "claude-sonnet-4-5" || !strings.HasPrefix(msg["id"].(string), "msg_") || msg["role"] != "assistant" {
		t.Fatalf("message_start %v", msg)
	}

	up.Enqueue(fake.Reply{Text: "Checking.", Reasoning: "Look it up.", ToolCalls: []fake.ToolCall{{ID: "toolu_9", Name: "get_weather", Arguments: `{"city":"Lyon"}`}}})
	r = postMessages(ts, admin, msgReq("claude-sonnet-4-5", "weather?", "stream", true, "tools", []any{weatherTool},
		"thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}, "max_tokens", 4096))
	mustStatus(t, r, 200)
	evs = parseMsgEvents(t, r.Body)
	want = "message_start ping content_block_start:thinking content_block_delta:thinking_delta content_block_delta:signature_delta content_block_stop " +
		"content_block_start:text content_block_delta:text_delta content_block_stop " +
		"content_block_start:tool_use content_block_delta:input_json_delta content_block_stop message_delta message_stop"
	if got := compact(eventNames(evs)); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if got := deltaText(evs, 2, "partial_json"); got != `{"city":"Lyon"}` {
		t.Fatalf("tool input %q", got)
	}
	if got := deltaText(evs, 0, "thinking"); got != "Look it up." || deltaText(evs, 0, "signature") == "" {
		t.Fatalf("thinking %q", got)
	}
	if d := evs[len(evs)-2].Data["delta"].(map[string]any); d["stop_reason"] != "tool_use" {
		t.Fatalf("stop reason %v", d)
	}

	up.Enqueue(fake.Reply{Text: "one two", Finish: "stop_sequence"})
	r = postMessages(ts, admin, msgReq("claude-sonnet-4-5", "count", "stream", true, "stop_sequences", []string{"three"}))
	evs = parseMsgEvents(t, r.Body)
	if d := evs[len(evs)-2].Data["delta"]; mustJSON(t, d) != `{"stop_reason":"stop_sequence","stop_sequence":"three"}` {
		t.Fatalf("stop sequence delta %v", d)
	}
}

// TestMessagesStreamError: an upstream stream that breaks off after its
// first text ends the Messages stream with an error event in Anthropic's
// shape, and no message_stop.
func TestMessagesStreamError(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-ant"))
	up.Enqueue(fake.Reply{Text: "partial answer", Truncate: true})
	r := postMessages(ts, admin, msgReq("claude-sonnet-4-5", "hi", "stream", true))
	mustStatus(t, r, 200)
	evs := parseMsgEvents(t, r.Body)
	last := evs[len(evs)-1]
	if last.Name != "error" || last.Data["error"].(map[string]any)["type"] == "" || last.Data["error"].(map[string]any)["message"] == "" {
		t.Fatalf("last event %v", last)
	}
	for _, e := range evs {
		if e.Name == "message_stop" {
			t.Fatalf("message_stop after an error: %v", eventNames(evs))
		}
	}
}

// TestMessagesStreamNotHeldBack: each event reaches the client as soon as
// its chunk arrives: the upstream (a local OpenAI-compatible server)
// sends its second chunk only after the client has read the first text
// delta, so a held-back event would deadlock the test.
func TestMessagesStreamNotHeldBack(t *testing.T) {
	next := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		chunk := func(delta, finish string) {
			fin := "null"
			if finish != "" {
				fin = `"` + finish + `"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"qwen3\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, fin)
			fl.Flush()
		}
		chunk(`{"role":"assistant","content":"Hel"}`, "")
		select {
		case <-next:
		case <-r.Context().Done():
			return
		}
		chunk(`{"content":"lo"}`, "")
		chunk(`{}`, "stop")
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"qwen3\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\ndata: [DONE]\n\n")
		fl.Flush()
	}))
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("ollama", up.URL+"/v1", ""))
	b, _ := json.Marshal(msgReq("ollama:qwen3", "hi", "stream", true))
	req, _ := http.NewRequest("POST", ts.URL+"/anthropic/v1/messages", bytes.NewReader(b))
	req.Header.Set("x-api-key", admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	var seen []string
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before the first delta: %v (saw %v)", err, seen)
		}
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "event: "); ok {
			seen = append(seen, name)
		}
		if strings.Contains(line, `"text_delta"`) {
			if !strings.Contains(line, `"text":"Hel"`) {
				t.Fatalf("first delta %q", line)
			}
			break
		}
	}
	close(next)
	rest, _ := io.ReadAll(rd)
	evs := parseMsgEvents(t, rest)
	if got := compact(eventNames(evs)); got != "content_block_delta:text_delta content_block_stop message_delta message_stop" {
		t.Fatalf("after the signal: %s", got)
	}
	if want := []string{"message_start", "ping", "content_block_start", "content_block_delta"}; strings.Join(seen, " ") != strings.Join(want, " ") {
		t.Fatalf("before the signal: %v", seen)
	}
	if got := deltaText(evs, 0, "text"); got != "lo" {
		t.Fatalf("second delta %q", got)
	}
	if u := evs[len(evs)-2].Data["usage"].(map[string]any); u["input_tokens"] != 3.0 || u["output_tokens"] != 2.0 {
		t.Fatalf("usage %v", u)
	}
}
