package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// BenchmarkChainHealth serves GET /health through the whole middleware
// chain (profile it with -memprofile/-cpuprofile to see the chain's own
// costs; TestMiddlewareChainAllocations bounds its allocations).
func BenchmarkChainHealth(b *testing.B) {
	ts := servertest.Start(b)
	h := ts.Handler()
	req := httptest.NewRequest(http.MethodGet, "/health", nil)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// BenchmarkAgentRun serves POST /v1/agent/run against a fake OpenAI
// upstream on loopback, the case of TestRunAllocations, for profiling one
// run's path in-process (the fake's costs included).
func BenchmarkAgentRun(b *testing.B) {
	f := fake.NewOpenAI()
	b.Cleanup(f.Close)
	f.SetDefault(fake.Reply{Text: allocReply})
	ts := servertest.Start(b, servertest.WithProvider("openai", f.BaseURL(), "sk-test"))
	h := ts.Handler()
	body, _ := json.Marshal(map[string]any{"model": "openai:gpt-4o-mini", "instructions": "You are terse.", "input": "Say something about foxes."})
	rec := &allocWriter{}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/agent/run", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		rec.reset()
		h.ServeHTTP(rec, req)
	}
}
