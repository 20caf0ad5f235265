package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// BenchmarkChainHealthAllocs serves GET /health through the whole
// middleware chain (request and trace ids, security headers, metrics,
// access log, guards), so a change that adds per-request allocations to
// every route shows here; profile it with -memprofile/-cpuprofile to see
// the chain's own costs. 20 allocations on Go 1.26 (27 under the race
// detector): the access log's record keeps its attributes inline; the
// LB-Fault header is read under its canonical name; the global middleware
// is composed once (chain.go; echo's own ServeHTTP wrapped it around
// every request, 11 allocations more); the request and trace ids share
// one allocation with their header values and the request copy carrying
// the request's context; guardIO's guards one with the connection
// control; a GET's empty body gets no byte limit; CORS sets shared header
// values and the status label of the request counter is made once.
func BenchmarkChainHealthAllocs(b *testing.B) {
	ts := servertest.Start(b)
	h := ts.Handler()
	req := httptest.NewRequest(http.MethodGet, "/health", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || len(rec.Header()["lb-request-id"]) == 0 || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			b.Fatalf("health: %d %v", rec.Code, rec.Header())
		}
	}
}

// BenchmarkAgentRun serves POST /v1/agent/run against a fake OpenAI
// upstream on loopback, a case of BenchmarkRunAllocs, for profiling one
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
