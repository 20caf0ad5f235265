package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/servertest"
)

// burstUpstream is an OpenAI stream that sends its role chunk and the
// first burst tokens in one write, then one lone token once the client
// has read the burst, then the end once the client has read the lone
// token. A stall (the client did not get a token before the upstream sent
// more) is recorded; the stream goes on after a safety wait.
type burstUpstream struct {
	burst  int
	mu     sync.Mutex
	seen   chan int // token numbers the client read
	stalls []int
}

func (u *burstUpstream) handle(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(delta, finish string) string {
		fin := "null"
		if finish != "" {
			fin = `"` + finish + `"`
		}
		return fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, fin)
	}
	send := func(s string) {
		io.WriteString(w, s)
		w.(http.Flusher).Flush()
	}
	wait := func(i int) {
		select {
		case got := <-u.seen:
			if got == i {
				return
			}
		case <-time.After(3 * time.Second):
		}
		u.mu.Lock()
		u.stalls = append(u.stalls, i)
		u.mu.Unlock()
	}
	burst := event(`{"role":"assistant","content":""}`, "")
	for i := range u.burst {
		burst += event(fmt.Sprintf(`{"content":"tok%d "}`, i), "")
	}
	send(burst)
	wait(u.burst - 1)
	send(event(fmt.Sprintf(`{"content":"tok%d "}`, u.burst), ""))
	wait(u.burst)
	send(event(`{}`, "stop") + `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}` + "\n\ndata: [DONE]\n\n")
}

// chunkedPost sends a POST over a fresh connection and returns the body's
// HTTP/1.1 chunks as they were framed, calling onChunk with each as it
// arrives.
func chunkedPost(t *testing.T, base, path, key string, body any, onChunk func(string)) []string {
	t.Helper()
	b, _ := json.Marshal(body)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", path, key, len(b), b)
	rd := bufio.NewReader(conn)
	status, _ := rd.ReadString('\n')
	chunked := false
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("headers: %v", err)
		}
		if line == "\r\n" {
			break
		}
		chunked = chunked || strings.EqualFold(strings.TrimSpace(line), "Transfer-Encoding: chunked")
	}
	if !strings.Contains(status, " 200 ") || !chunked {
		rest, _ := io.ReadAll(rd)
		t.Fatalf("%s (chunked %v): %s", strings.TrimSpace(status), chunked, rest)
	}
	var chunks []string
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("chunk size: %v", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 32)
		if err != nil {
			t.Fatalf("chunk size %q: %v", line, err)
		}
		if n == 0 {
			return chunks
		}
		buf := make([]byte, n+2) // the chunk and its CRLF
		if _, err := io.ReadFull(rd, buf); err != nil {
			t.Fatalf("chunk: %v", err)
		}
		chunks = append(chunks, string(buf[:n]))
		onChunk(string(buf[:n]))
	}
}

// TestStreamsCoalesceEventsThatArriveTogether: the events the upstream
// sent in one write leave Hearth in one write (one HTTP chunk), and an
// event that arrives alone is sent at once, before the upstream sends
// more (pipe runs, agent runs and the OpenAI-compatible endpoint).
func TestStreamsCoalesceEventsThatArriveTogether(t *testing.T) {
	up := &burstUpstream{burst: 4, seen: make(chan int, 1)}
	us := httptest.NewServer(http.HandlerFunc(up.handle))
	defer us.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", us.URL+"/v1", "sk-test"))
	r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "burst", "model": "openai:gpt-4o-mini"})
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
	tok := func(i int) string { return fmt.Sprintf("tok%d ", i) }
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up.stalls = nil
			next := 0
			chunks := chunkedPost(t, ts.URL, tc.path, tc.key, tc.body, func(c string) {
				for next <= up.burst && strings.Contains(c, tok(next)) {
					if next >= up.burst-1 {
						up.seen <- next
					}
					next++
				}
			})
			all := strings.Join(chunks, "")
			if next != up.burst+1 || !strings.Contains(all, "[DONE]") {
				t.Fatalf("read %d of %d tokens: %q", next, up.burst+1, all)
			}
			up.mu.Lock()
			stalls := up.stalls
			up.mu.Unlock()
			if len(stalls) > 0 {
				t.Fatalf("events held back until the upstream sent more: after tokens %v", stalls)
			}
			var first string
			for _, c := range chunks {
				if strings.Contains(c, tok(0)) {
					first = c
				}
			}
			if !strings.Contains(first, `"role":"assistant"`) || !strings.Contains(first, tok(up.burst-1)) {
				t.Fatalf("the burst's events left in several writes: chunks %q", chunks)
			}
			if strings.Count(first, "data: ") != up.burst+1 {
				t.Fatalf("the burst's write has %d events, want %d: %q", strings.Count(first, "data: "), up.burst+1, first)
			}
		})
	}
}
