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

// BenchmarkRuns measures whole non-stream runs through the handler, as
// TestRunAllocations counts them: the middleware chain, the upstream call
// to a fake on loopback (which shares the process, so its CPU is counted
// too) and the run log. For CPU and allocation profiles of the handler
// logic (-cpuprofile, -memprofile); timings only in a benchmark.
func BenchmarkRuns(b *testing.B) {
	f := fake.NewOpenAI()
	b.Cleanup(f.Close)
	f.SetDefault(fake.Reply{Text: allocReply})
	ts := servertest.Start(b, servertest.WithProvider("openai", f.BaseURL(), "sk-test"))
	var pipe struct {
		APIKey string `json:"api_key"`
	}
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "bench", "model": "openai:gpt-4o-mini", "store": false,
		"messages": []any{map[string]any{"role": "system", "content": "You are terse."}}}).JSON(b, &pipe)
	msgs := []any{user("Say something about foxes.")}
	h := ts.Handler()
	for _, c := range []struct {
		name, path, key string
		body            map[string]any
	}{
		{"pipe", "/v1/pipes/run", pipe.APIKey, map[string]any{"messages": msgs}},
		{"agent", "/v1/agent/run", admin, map[string]any{"model": "openai:gpt-4o-mini", "instructions": "You are terse.",
			"input": "Say something about foxes."}},
		{"openai", "/openai/v1/chat/completions", admin, map[string]any{"model": "openai:gpt-4o-mini", "messages": msgs}},
	} {
		b.Run(c.name, func(b *testing.B) {
			body, _ := json.Marshal(c.body)
			rec := &allocWriter{}
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, c.path, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+c.key)
				req.Header.Set("Content-Type", "application/json")
				rec.reset()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", c.path, rec.Code, rec.Body.String())
				}
			}
		})
	}
}
