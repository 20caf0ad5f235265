package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/mcp/mcptest"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// barrierChat is an OpenAI-wire chat host that answers no request until n
// are in flight at once (stream requests get their headers at once and
// their events then), or answers 504 after 20 s.
func barrierChat(t *testing.T, n int) string {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		stream := strings.Contains(string(body), `"stream":true`)
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		mu.Lock()
		if arrived++; arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(20 * time.Second):
			if !stream {
				http.Error(w, `{"error":{"message":"not all requests arrived"}}`, http.StatusGatewayTimeout)
			}
			return
		}
		if !stream {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"together"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
			return
		}
		io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"together\"},\"finish_reason\":null}]}\n\n")
		io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestWaitingOnTheModelHoldsNoCPUTurn: with one CPU turn per CPU and the
// watch that takes back long-held turns off, more requests than turns
// reach a model that answers none until all have arrived, on the lean and
// the net/http upstream client, streamed or not: a request gives its turn
// back while it waits for the answer's headers and for its body. The
// requests come from two keys: a key alone takes no turns.
func TestWaitingOnTheModelHoldsNoCPUTurn(t *testing.T) {
	n := 2*runtime.GOMAXPROCS(0) + 2
	for _, client := range []string{"lean", "stdlib"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", client, stream), func(t *testing.T) {
				ts := servertest.Start(t, servertest.WithProvider("openai", barrierChat(t, n), "sk-test"),
					servertest.WithConfig(func(c *server.Config) { c.TurnsPerCPU = 1 }),
					servertest.WithProviders(func(c *providers.Config) {
						if client == "stdlib" {
							c.HTTP1 = "stdlib"
						}
					}))
				server.KeepStaleTurns(ts.Server)
				if a := ts.Server.Admission(); a.Turns != runtime.GOMAXPROCS(0) {
					t.Fatalf("%d turns, want one per CPU", a.Turns)
				}
				keys := []string{servertest.AdminKey, ts.UserWithKey("bob")}
				var wg sync.WaitGroup
				answers := make([]*servertest.Response, n)
				for i := range n {
					wg.Go(func() {
						answers[i] = ts.Do("POST", "/openai/v1/chat/completions", keys[i%2], map[string]any{
							"model": "openai:gpt-4o-mini", "stream": stream,
							"messages": []map[string]string{{"role": "user", "content": "hi"}}})
					})
				}
				wg.Wait()
				for i, r := range answers {
					if r.Status != 200 || !strings.Contains(string(r.Body), "together") {
						t.Fatalf("request %d: %d %s", i, r.Status, r.Body)
					}
				}
				if a := ts.Server.Admission(); a.TurnsHeld != 0 || a.TurnsWaiting != 0 || a.TurnsTaken != 0 || a.TurnsGiven == 0 {
					t.Fatalf("after the answers: %+v", a)
				}
			})
		}
	}
}

// TestWaitingOnToolsHoldsNoCPUTurn: with one CPU turn per CPU and the
// watch that takes back long-held turns off, more agent runs than turns,
// from two keys, call an MCP tool that answers none until all the calls
// have arrived: a run gives its turn back while it connects to the MCP
// server and while its tools run.
func TestWaitingOnToolsHoldsNoCPUTurn(t *testing.T) {
	n := 2*runtime.GOMAXPROCS(0) + 2
	srv := mcptest.Start(t, mcptest.Options{})
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.TurnsPerCPU = 1 }))
	server.KeepStaleTurns(ts.Server)
	keys := []string{servertest.AdminKey, ts.UserWithKey("bob")}
	var wg sync.WaitGroup
	answers := make([]*servertest.Response, n)
	for i := range n {
		wg.Go(func() {
			answers[i] = ts.Do("POST", "/v1/agent/run", keys[i%2], map[string]any{
				"model": "hearth:echo", "input": fmt.Sprintf(`call_tool:gate__together {"n":%d}`, n),
				"mcp_servers": []any{map[string]any{"type": "url", "name": "gate", "url": srv.URL}}})
		})
	}
	wg.Wait()
	for i, r := range answers {
		if r.Status != 200 || !strings.Contains(string(r.Body), "tool result: together") {
			t.Fatalf("run %d: %d %s", i, r.Status, r.Body)
		}
	}
	if a := ts.Server.Admission(); a.TurnsHeld != 0 || a.TurnsWaiting != 0 || a.TurnsTaken != 0 {
		t.Fatalf("after the answers: %+v", a)
	}
}
