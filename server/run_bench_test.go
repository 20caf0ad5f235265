package server_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// BenchmarkRuns measures whole non-stream runs through the handler, as
// TestRunAllocations counts them: the middleware chain, the upstream call
// to a fake on loopback (which shares the process, so its CPU is counted
// too) and the run log. For CPU and allocation profiles of the handler
// logic (-cpuprofile, -memprofile); timings only in a benchmark.
func BenchmarkRuns(b *testing.B) {
	ts := startRunServer(b)
	msgs := []any{user("Say something about foxes.")}
	for _, c := range []struct {
		name, path, key string
		body            map[string]any
	}{
		{"pipe", "/v1/pipes/run", ts.pipeKey, map[string]any{"messages": msgs}},
		{"agent", "/v1/agent/run", admin, map[string]any{"model": "openai:gpt-4o-mini", "instructions": "You are terse.",
			"input": "Say something about foxes."}},
		{"openai", "/openai/v1/chat/completions", admin, map[string]any{"model": "openai:gpt-4o-mini", "messages": msgs}},
	} {
		b.Run(c.name, func(b *testing.B) {
			body, _ := json.Marshal(c.body)
			rec := &allocWriter{}
			b.ReportAllocs()
			for b.Loop() {
				ts.run(rec, c.path, c.key, body)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", c.path, rec.Code, rec.Body.String())
				}
			}
		})
	}
}
