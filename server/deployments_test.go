package server_test

import (
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// deploymentHost is a fake OpenAI-wire model server answering with its
// name, or with status when set.
func deploymentHost(t *testing.T, name string, status int, calls *atomic.Int64) string {
	srv := httptest.NewServer(fake.FixedChat(name, status, calls))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestDeploymentsEndToEnd: a model served by two deployments, one failing
// with 503: chat completions, Messages and pipe runs all answer from the
// healthy one; GET /v1/providers shows both deployments' state, the run
// log names the deployment that served each run, and /metrics counts
// calls per deployment.
func TestDeploymentsEndToEnd(t *testing.T) {
	var badCalls, goodCalls atomic.Int64
	bad, good := deploymentHost(t, "from-bad", 503, &badCalls), deploymentHost(t, "from-good", 0, &goodCalls)
	ts := servertest.Start(t, servertest.WithProviders(func(c *providers.Config) {
		c.Deployments = []providers.ModelDeployments{{Model: "local:llama", Servers: []providers.Deployment{
			{Name: "gpu-bad", BaseURL: bad}, {Name: "gpu-good", BaseURL: good}}}}
	}))
	admin := servertest.AdminKey
	for i := 0; i < 3; i++ {
		r := ts.Do("POST", "/openai/v1/chat/completions", admin, map[string]any{"model": "local:llama", "messages": []any{user("hi")}})
		mustStatus(t, r, 200)
		if !strings.Contains(string(r.Body), "from-good") {
			t.Fatalf("answer: %s", r.Body)
		}
	}
	if badCalls.Load() != 1 {
		t.Fatalf("the failing deployment got %d calls, want 1 (then it cools down)", badCalls.Load())
	}
	r := ts.Do("POST", "/anthropic/v1/messages", admin, map[string]any{"model": "local:llama", "max_tokens": 10, "messages": []any{user("hi")}})
	mustStatus(t, r, 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "dp", "model": "local:llama"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "dp", "stream": false, "messages": []any{user("hi")}}), 200)

	var view struct {
		Providers []struct {
			Provider    string
			Key         string
			Deployments []engine.DeploymentStatus
		}
	}
	r = ts.Do("GET", "/v1/providers", admin, nil)
	mustStatus(t, r, 200)
	r.JSON(t, &view)
	var local []engine.DeploymentStatus
	for _, p := range view.Providers {
		if p.Provider == "local" {
			local = p.Deployments
			if p.Key != "not needed" {
				t.Fatalf("local key status %q", p.Key)
			}
		}
	}
	if len(local) != 2 || local[0].Name != "gpu-bad" || local[0].State != "cooling" || local[0].Errors != 1 ||
		!strings.Contains(local[0].LastError, "HTTP 503") || local[1].State != "healthy" || local[1].Requests != 5 {
		t.Fatalf("deployments in /v1/providers: %s", r.Body)
	}

	runs := listRuns(t, ts)
	kinds := map[string]int{}
	for _, run := range runs {
		if run.Model != "local:llama" {
			continue
		}
		kinds[run.Kind]++
		if run.Deployment != "gpu-good" {
			t.Fatalf("run %s (%s) served by %q", run.ID, run.Kind, run.Deployment)
		}
	}
	if kinds[engine.RunKindCompletion] != 4 || kinds[engine.RunKindPipe] != 1 {
		t.Fatalf("runs by kind: %v", kinds)
	}

	if r := ts.Do("GET", "/v1/models", admin, nil); r.Status != 200 || !strings.Contains(string(r.Body), `"local:llama"`) {
		t.Fatalf("/v1/models: %d %s", r.Status, r.Body)
	}

	m := ts.Do("GET", "/metrics", admin, nil)
	mustStatus(t, m, 200)
	for _, want := range []string{
		`hearth_deployment_requests_total{deployment="gpu-good",model="local:llama"} 5`,
		`hearth_deployment_errors_total{deployment="gpu-bad",model="local:llama"} 1`,
		`hearth_deployment_healthy{deployment="gpu-bad",model="local:llama"} 0`,
	} {
		if !strings.Contains(string(m.Body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
