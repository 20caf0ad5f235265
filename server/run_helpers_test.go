package server_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// runServer is Hearth against a fake OpenAI upstream that answers
// allocReply, with a store:false pipe "allocs" (a system message), as
// BenchmarkRunAllocs measures whole runs.
type runServer struct {
	*servertest.Server
	h       http.Handler
	pipeKey string // the API key of the pipe "allocs"
}

func startRunServer(t testing.TB) *runServer {
	t.Helper()
	f := fake.NewOpenAI()
	t.Cleanup(f.Close)
	f.SetDefault(fake.Reply{Text: allocReply})
	ts := servertest.Start(t, servertest.WithProvider("openai", f.BaseURL(), "sk-test"))
	var pipe struct {
		APIKey string `json:"api_key"`
	}
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "allocs", "model": "openai:gpt-4o-mini", "store": false,
		"messages": []any{map[string]any{"role": "system", "content": "You are terse."}}}).JSON(t, &pipe)
	return &runServer{Server: ts, h: ts.Handler(), pipeKey: pipe.APIKey}
}

// run sends one POST with a JSON body through the handler into rec,
// which it resets first.
func (s *runServer) run(rec *allocWriter, path, key string, body []byte) {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	rec.reset()
	s.h.ServeHTTP(rec, req)
}

// allocReply is the fake's answer: streamed as one event a word, so a
// per-event cost shows in the stream cases 24 times over.
const allocReply = "Foxes are quick and clever animals that live in forests, fields and even cities, and they hunt mostly at night for food."

// allocWriter is the response writer of BenchmarkRunAllocs: like the
// server's own, it supports flushing and connection deadlines (the
// recorder of net/http/httptest does not, and its errors and header
// snapshots would be counted as the run's), and it is reused across runs.
type allocWriter struct {
	header http.Header
	Code   int
	Body   bytes.Buffer
}

func (w *allocWriter) reset() {
	if w.header == nil {
		w.header = http.Header{}
	}
	clear(w.header)
	w.Code = 0
	w.Body.Reset()
}

func (w *allocWriter) Header() http.Header { return w.header }

func (w *allocWriter) WriteHeader(code int) {
	if w.Code == 0 {
		w.Code = code
	}
}

func (w *allocWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.Body.Write(b)
}

func (w *allocWriter) Flush()                           {}
func (w *allocWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *allocWriter) SetWriteDeadline(time.Time) error { return nil }
