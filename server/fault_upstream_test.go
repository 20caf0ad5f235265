package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// Upstream faults through the real provider adapters: every failure is a
// clear JSON error before the first byte, or an SSE error event after it,
// and the server keeps serving.

// fastTimeout bounds each upstream call (and the silence between stream
// events) at 300 ms.
var fastTimeout = servertest.WithProviders(func(p *providers.Config) { p.Timeout = 300 * time.Millisecond })

type faultCase struct {
	name   string
	stream bool
	status int
	code   string
	// event, for a failure after the stream started: the error event text.
	event string
}

func runFault(t *testing.T, ts *servertest.Server, tc faultCase) {
	t.Helper()
	start := time.Now()
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "stream": tc.stream, "messages": []any{user("hi")}})
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("the run took %v", el)
	}
	if r.Status != tc.status {
		t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Body)
	}
	if tc.event != "" {
		events, _ := parseSSE(r.Body)
		if len(events) == 0 {
			t.Fatalf("no events: %q", r.Body)
		}
		var last map[string]any
		json.Unmarshal([]byte(events[len(events)-1].Data), &last)
		if msg, _ := last["error"].(string); !strings.Contains(msg, tc.event) || strings.Contains(string(r.Body), "[DONE]") {
			t.Fatalf("last event %q, want an error mentioning %q", events[len(events)-1].Data, tc.event)
		}
		return
	}
	var body struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	r.JSON(t, &body)
	if body.Code != tc.code || !strings.Contains(body.Error, "openai") || strings.Contains(body.Error, "goroutine") {
		t.Fatalf("body %s, want code %s", r.Body, tc.code)
	}
}

func TestUpstreamHangs(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"), fastTimeout)
	mustStatus(t, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p"}), 200)
	up.SetDefault(fake.Reply{Hang: true})
	for _, tc := range []faultCase{
		{name: "json", status: 504, code: "UPSTREAM_TIMEOUT"},
		{name: "stream before the first byte", stream: true, status: 504, code: "UPSTREAM_TIMEOUT"},
	} {
		t.Run(tc.name, func(t *testing.T) { runFault(t, ts, tc) })
	}
	// A stream that stalls after its first events.
	up.SetDefault(fake.Reply{Text: "one two three", ChunkDelay: 2 * time.Second})
	t.Run("stream stalls midway", func(t *testing.T) {
		runFault(t, ts, faultCase{stream: true, status: 200, event: "openai"})
	})
	up.SetDefault(fake.Reply{})
	mustStatus(t, ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("hi")}}), 200)
}

// garbageUpstream answers chat completions with what its handler writes.
func garbageUpstream(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL + "/v1"
}

func TestUpstreamGarbageAndDrops(t *testing.T) {
	cases := []struct {
		faultCase
		handler http.HandlerFunc
	}{
		{faultCase{name: "html instead of JSON", status: 502, code: "UPSTREAM_ERROR"}, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body>Bad gateway, try later</body></html>")
		}},
		{faultCase{name: "truncated JSON", status: 502, code: "UPSTREAM_ERROR"}, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"x","choices":[{"message":{"role":"assist`)
		}},
		{faultCase{name: "connection dropped mid-body", status: 502, code: "UPSTREAM_ERROR"}, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "5000")
			io.WriteString(w, `{"id":"x",`)
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}},
		{faultCase{name: "garbage stream events", stream: true, status: 200, event: "openai"}, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"partial"}}]}`+"\n\n")
			io.WriteString(w, "data: {this is not json\n\n")
		}},
		{faultCase{name: "stream dropped", stream: true, status: 200, event: "openai"}, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"partial"}}]}`+"\n\n")
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := servertest.Start(t, servertest.WithProvider("openai", garbageUpstream(t, tc.handler), "sk-test"), fastTimeout)
			mustStatus(t, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p"}), 200)
			runFault(t, ts, tc.faultCase)
			mustStatus(t, ts.Do("GET", "/health", "", nil), 200)
		})
	}
}
