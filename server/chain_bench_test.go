package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

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
	ts := startRunServer(b)
	body, _ := json.Marshal(map[string]any{"model": "openai:gpt-4o-mini", "instructions": "You are terse.", "input": "Say something about foxes."})
	rec := &allocWriter{}
	b.ReportAllocs()
	for b.Loop() {
		ts.run(rec, "/v1/agent/run", admin, body)
	}
}
