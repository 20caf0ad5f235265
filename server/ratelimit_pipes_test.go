package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestPipeRateLimitAndRunMetrics runs the offline echo model through the
// real registry: the per-pipe budget is shared by the pipe's key and by
// owner-key runs naming the pipe, and runs show up in the metrics.
func TestPipeRateLimitAndRunMetrics(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.RateLimitPerPipe = 2 }))
	var p struct {
		APIKey string `json:"api_key"`
	}
	for _, name := range []string{"p", "q"} {
		r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": name, "model": "hearth:echo"})
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if name == "p" {
			r.JSON(t, &p)
		}
	}
	run := func(key string, body map[string]any) *servertest.Response {
		body["messages"] = []any{user("hi")}
		return ts.Do("POST", "/v1/pipes/run", key, body)
	}
	if r := run(p.APIKey, map[string]any{}); r.Status != 200 || r.Header.Get("RateLimit-Remaining") != "1" {
		t.Fatalf("pipe key run: %d %v %s", r.Status, r.Header, r.Body)
	}
	if r := run(admin, map[string]any{"name": "p", "stream": true}); r.Status != 200 || r.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("owner run: %d %v", r.Status, r.Header)
	}
	r := run(p.APIKey, map[string]any{"stream": true})
	var e apiErr
	r.JSON(t, &e)
	if r.Status != 429 || r.Header.Get("Retry-After") != "30" || e.Error.Code != "RATE_LIMITED" {
		t.Fatalf("third run: %d %v %s", r.Status, r.Header, r.Body)
	}
	if r := run(admin, map[string]any{"name": "q"}); r.Status != 200 {
		t.Fatalf("another pipe: %d %s", r.Status, r.Body)
	}
	m := string(ts.Do("GET", "/metrics", admin, nil).Body)
	for _, want := range []string{
		`hearth_http_rejected_total{reason="rate_limit_pipe"} 1`,
		`hearth_http_requests_total{method="POST",route="/v1/pipes/run",status="200"} 3`,
		`hearth_http_requests_total{method="POST",route="/v1/pipes/run",status="429"} 1`,
		`hearth_upstream_requests_total{code="ok",kind="chat",provider="hearth"} 2`,
		`hearth_upstream_requests_total{code="ok",kind="chat_stream",provider="hearth"} 1`,
		`hearth_model_tokens_total{model="echo",provider="hearth",type="completion"}`,
		`hearth_model_cost_usd_total{model="echo",provider="hearth"} 0`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
