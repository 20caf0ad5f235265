package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// BenchmarkRunAllocs measures whole runs through the handler, one
// sub-benchmark a route: POST /v1/pipes/run (a store:false pipe and a
// stored one), /v1/agent/run and /openai/v1/chat/completions, and the
// pipe and agent streams, against a fake OpenAI upstream on loopback. Its
// allocs/op are the allocations of one request on that route, counted for
// the whole process: the middleware chain, the upstream call, the fake
// answering it (which shares the process, so its CPU is counted too), the
// thread write and the run log worker. Most of a stream's count is the fake
// encoding its 24 events with encoding/json (about 1000); Hearth's own share
// of a stream is under 150. Go 1.26 measured 178-204 (pipe), 293-324
// (stored pipe), 176-199 (agent), 182-208 (chat), 1162-1164 (pipe stream)
// and 1157-1162 (agent stream); the figures move with stream coalescing
// and scheduling, which is why they are a benchmark and not a test. For
// CPU and allocation profiles of the handler logic use -cpuprofile and
// -memprofile; make bench runs it, and hearthbench's gateway table prints
// the same routes' allocations a request over real connections.
func BenchmarkRunAllocs(b *testing.B) {
	ts := startRunServer(b)
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "allocs-stored", "model": "openai:gpt-4o-mini", "store": true,
		"messages": []any{map[string]any{"role": "system", "content": "You are terse."}}})
	msgs := []any{user("Say something about foxes.")}
	agentBody := func(stream bool) map[string]any {
		return map[string]any{"model": "openai:gpt-4o-mini", "instructions": "You are terse.", "input": "Say something about foxes.", "stream": stream}
	}
	for _, c := range []struct {
		name, path, key string
		body            map[string]any
	}{
		{"pipe", "/v1/pipes/run", ts.pipeKey, map[string]any{"messages": msgs}},
		{"stored pipe", "/v1/pipes/run", admin, map[string]any{"name": "allocs-stored", "messages": msgs}},
		{"agent", "/v1/agent/run", admin, agentBody(false)},
		{"openai", "/openai/v1/chat/completions", admin, map[string]any{"model": "openai:gpt-4o-mini", "messages": msgs}},
		{"pipe stream", "/v1/pipes/run", ts.pipeKey, map[string]any{"messages": msgs, "stream": true}},
		{"agent stream", "/v1/agent/run", admin, agentBody(true)},
	} {
		b.Run(c.name, func(b *testing.B) {
			body, _ := json.Marshal(c.body)
			want := []byte(allocReply)
			if c.body["stream"] == true {
				want = []byte("data: [DONE]")
			}
			rec := &allocWriter{}
			run := func() {
				ts.run(rec, c.path, c.key, body)
				if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), want) {
					b.Fatalf("%s: %d %s", c.path, rec.Code, rec.Body.String())
				}
			}
			run()
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
		})
	}
}
