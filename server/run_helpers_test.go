package server_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// runServer is Hearth against a fake OpenAI upstream that answers
// allocReply, with a store:false pipe "allocs" (a system message), as
// TestRunAllocations and BenchmarkRuns measure whole runs.
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
