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
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/servertest"
)

// lockstepUpstream is an OpenAI stream that sends its next token only
// once the client has read the previous one through Hearth: a gateway
// that held an event back until more bytes came would stall it. A stall
// is recorded (and the stream goes on after a safety wait, so the test
// ends); the assertion is on order, never on time.
type lockstepUpstream struct {
	tokens int
	mu     sync.Mutex
	seen   chan int // token numbers the client read
	stalls []int
}

func (u *lockstepUpstream) handle(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta, finish string) {
		fin := "null"
		if finish != "" {
			fin = `"` + finish + `"`
		}
		fmt.Fprintf(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, fin)
		w.(http.Flusher).Flush()
	}
	chunk(`{"role":"assistant","content":""}`, "")
	for i := range u.tokens {
		chunk(fmt.Sprintf(`{"content":"tok%d "}`, i), "")
		select {
		case got := <-u.seen:
			if got != i {
				u.stall(i)
			}
		case <-time.After(3 * time.Second):
			u.stall(i)
		}
	}
	chunk(`{}`, "stop")
	io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}`+"\n\ndata: [DONE]\n\n")
}

func (u *lockstepUpstream) stall(i int) {
	u.mu.Lock()
	u.stalls = append(u.stalls, i)
	u.mu.Unlock()
}

// TestStreamsFlushEveryEvent: pipe runs, agent runs and the
// OpenAI-compatible endpoint pass each upstream event on before the next
// one exists.
func TestStreamsFlushEveryEvent(t *testing.T) {
	up := &lockstepUpstream{tokens: 6, seen: make(chan int, 1)}
	us := httptest.NewServer(http.HandlerFunc(up.handle))
	defer us.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", us.URL+"/v1", "sk-test"))
	r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "lockstep", "model": "openai:gpt-4o-mini"})
	var pipe struct {
		APIKey string `json:"api_key"`
	}
	if r.Status != 200 || json.Unmarshal(r.Body, &pipe) != nil {
		t.Fatalf("create pipe: %d %s", r.Status, r.Body)
	}
	user := []map[string]any{{"role": "user", "content": "count"}}
	cases := []struct {
		name, path, key string
		body            map[string]any
	}{
		{"pipe run", "/v1/pipes/run", pipe.APIKey, map[string]any{"messages": user, "stream": true}},
		{"agent run", "/v1/agent/run", admin, map[string]any{"model": "openai:gpt-4o-mini", "input": "count", "stream": true}},
		{"openai chat", "/openai/v1/chat/completions", admin, map[string]any{"model": "openai:gpt-4o-mini", "messages": user, "stream": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up.stalls = nil
			b, _ := json.Marshal(tc.body)
			req, _ := http.NewRequest("POST", ts.URL+tc.path, bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+tc.key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			next, done := 0, false
			rd := bufio.NewReader(resp.Body)
			for {
				line, err := rd.ReadString('\n')
				if next < up.tokens && strings.Contains(line, fmt.Sprintf("tok%d ", next)) {
					select { // never blocks: a stalled upstream has moved on
					case up.seen <- next:
					default:
					}
					next++
				}
				done = done || strings.Contains(line, "[DONE]")
				if err != nil {
					break
				}
			}
			if next != up.tokens || !done {
				t.Fatalf("read %d of %d tokens, [DONE] %v", next, up.tokens, done)
			}
			up.mu.Lock()
			defer up.mu.Unlock()
			if len(up.stalls) > 0 {
				t.Fatalf("events held back until the upstream sent more: after tokens %v", up.stalls)
			}
		})
	}
}
