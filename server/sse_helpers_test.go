package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/servertest"
)

// streamEvent returns one SSE event holding an OpenAI chat.completion.chunk
// with one choice: delta is its JSON object, finish its finish_reason
// (null when empty).
func streamEvent(delta, finish string) string {
	fin := "null"
	if finish != "" {
		fin = `"` + finish + `"`
	}
	return fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, fin)
}

// openStream reads the request, starts an event stream and returns a
// function that writes and flushes one or more events.
func openStream(w http.ResponseWriter, r *http.Request) (send func(events string)) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	return func(events string) {
		io.WriteString(w, events)
		w.(http.Flusher).Flush()
	}
}

// streamEnd is the last choice, the usage event and [DONE] that end the
// fake upstreams' streams.
const streamEnd = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
	`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}` + "\n\ndata: [DONE]\n\n"

// stallLog is shared by a fake upstream that waits for the client to read
// a token before it sends more and the client that reports each token it
// read. A stall (the client did not report the token the upstream waited
// for) is recorded and the upstream goes on after a safety wait, so a
// test ends; tests assert on the record, never on time.
type stallLog struct {
	seen   chan int // token numbers the client read
	mu     sync.Mutex
	stalls []int
}

func newStallLog() *stallLog { return &stallLog{seen: make(chan int, 1)} }

// wait blocks until the client reports token i, recording a stall when it
// reports another or not at all.
func (s *stallLog) wait(i int) {
	select {
	case got := <-s.seen:
		if got == i {
			return
		}
	case <-time.After(3 * time.Second):
	}
	s.mu.Lock()
	s.stalls = append(s.stalls, i)
	s.mu.Unlock()
}

// reset forgets the stalls of an earlier stream.
func (s *stallLog) reset() {
	s.mu.Lock()
	s.stalls = nil
	s.mu.Unlock()
}

// check fails the test when an event was held back.
func (s *stallLog) check(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.stalls) > 0 {
		t.Fatalf("events held back until the upstream sent more: after tokens %v", s.stalls)
	}
}

// streamRoute is one streaming request: pipe run, agent run or the
// OpenAI-compatible endpoint.
type streamRoute struct {
	name, path, key string
	body            map[string]any
}

// startStreamRoutes starts Hearth against upstream as provider openai,
// creates a pipe and returns the server and the three streaming routes.
func startStreamRoutes(t *testing.T, upstream http.HandlerFunc) (*servertest.Server, []streamRoute) {
	t.Helper()
	us := httptest.NewServer(upstream)
	t.Cleanup(us.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", us.URL+"/v1", "sk-test"))
	r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "stream-routes", "model": "openai:gpt-4o-mini"})
	var pipe struct {
		APIKey string `json:"api_key"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &pipe) != nil {
		t.Fatalf("create pipe: %d %s", r.Status, r.Body)
	}
	user := []map[string]any{{"role": "user", "content": "count"}}
	return ts, []streamRoute{
		{"pipe run", "/v1/pipes/run", pipe.APIKey, map[string]any{"messages": user, "stream": true}},
		{"agent run", "/v1/agent/run", admin, map[string]any{"model": "openai:gpt-4o-mini", "input": "count", "stream": true}},
		{"openai chat", "/openai/v1/chat/completions", admin, map[string]any{"model": "openai:gpt-4o-mini", "messages": user, "stream": true}},
	}
}
