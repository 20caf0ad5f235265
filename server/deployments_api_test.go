package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/server/servertest"
)

// keyedHost is a fake OpenAI-wire model server answering with its name; it
// counts its calls and keeps the last Authorization header it was sent.
type keyedHost struct {
	URL   string
	calls atomic.Int64
	mu    sync.Mutex
	auth  string
}

func newKeyedHost(t *testing.T, name string) *keyedHost {
	h := &keyedHost{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Method == http.MethodGet { // health probe
			io.WriteString(w, `{"object":"list","data":[]}`)
			return
		}
		h.calls.Add(1)
		h.mu.Lock()
		h.auth = r.Header.Get("Authorization")
		h.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"llama","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, name)
	}))
	t.Cleanup(srv.Close)
	h.URL = srv.URL + "/v1"
	return h
}

func (h *keyedHost) lastAuth() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.auth
}

// chatOnce sends one chat completion to model and returns the answer body.
func chatOnce(t *testing.T, ts *servertest.Server, model string) string {
	t.Helper()
	r := ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": model, "messages": []any{user("hi")}})
	mustStatus(t, r, 200)
	return string(r.Body)
}

// TestDeploymentsAPIRoutesTraffic: a deployment created through the API
// serves its model at once, with its own key; a second one with weight 3
// takes three calls in four; after a weight update the split follows; a
// deleted deployment gets no more calls, and with none left the model is
// unknown again.
func TestDeploymentsAPIRoutesTraffic(t *testing.T) {
	a, b := newKeyedHost(t, "from-a"), newKeyedHost(t, "from-b")
	ts := servertest.Start(t)
	admin := servertest.AdminKey
	r := ts.Do("POST", "/openai/v1/chat/completions", admin, map[string]any{"model": "gpu:llama", "messages": []any{user("hi")}})
	mustStatus(t, r, 400)

	r = ts.Do("POST", "/v1/deployments", admin, map[string]any{"name": "box-a", "model": "gpu:llama", "base_url": a.URL, "api_key": "sk-box-a-secret"})
	mustStatus(t, r, 200)
	if strings.Contains(string(r.Body), "sk-box-a-secret") || !strings.Contains(string(r.Body), `"api_key_last4":"cret"`) {
		t.Fatalf("create answer must mask the key: %s", r.Body)
	}
	if got := chatOnce(t, ts, "gpu:llama"); !strings.Contains(got, "from-a") {
		t.Fatalf("answer %s, want from-a", got)
	}
	if a.lastAuth() != "Bearer sk-box-a-secret" {
		t.Fatalf("box-a was sent %q, want its own key", a.lastAuth())
	}

	mustStatus(t, ts.Do("POST", "/v1/deployments", admin, map[string]any{"name": "box-b", "model": "gpu:llama", "base_url": b.URL, "weight": 3}), 200)
	a.calls.Store(0)
	for range 8 {
		chatOnce(t, ts, "gpu:llama")
	}
	if a.calls.Load() != 2 || b.calls.Load() != 6 {
		t.Fatalf("weights 1:3 over 8 calls: a %d, b %d, want 2 and 6", a.calls.Load(), b.calls.Load())
	}

	mustStatus(t, ts.Do("PUT", "/v1/deployments/box-a", admin, map[string]any{"weight": 3}), 200)
	mustStatus(t, ts.Do("PUT", "/v1/deployments/box-b", admin, map[string]any{"weight": 1}), 200)
	a.calls.Store(0)
	b.calls.Store(0)
	for range 8 {
		chatOnce(t, ts, "gpu:llama")
	}
	if a.calls.Load() != 6 || b.calls.Load() != 2 {
		t.Fatalf("weights 3:1 over 8 calls: a %d, b %d, want 6 and 2", a.calls.Load(), b.calls.Load())
	}
	if a.lastAuth() != "Bearer sk-box-a-secret" {
		t.Fatalf("a weight update must keep the key; box-a was sent %q", a.lastAuth())
	}

	mustStatus(t, ts.Do("DELETE", "/v1/deployments/box-a", admin, nil), 200)
	a.calls.Store(0)
	for range 4 {
		if got := chatOnce(t, ts, "gpu:llama"); !strings.Contains(got, "from-b") {
			t.Fatalf("after deleting box-a: %s", got)
		}
	}
	if a.calls.Load() != 0 {
		t.Fatalf("deleted box-a still got %d calls", a.calls.Load())
	}
	mustStatus(t, ts.Do("DELETE", "/v1/deployments/box-b", admin, nil), 200)
	r = ts.Do("POST", "/openai/v1/chat/completions", admin, map[string]any{"model": "gpu:llama", "messages": []any{user("hi")}})
	mustStatus(t, r, 400)
}

// TestDeploymentsAPIValidation: bad input is a 4xx naming the field and
// the rule; only the operator manages deployments; the configuration's
// deployments are listed read-only and their models refuse stored ones.
func TestDeploymentsAPIValidation(t *testing.T) {
	up := newKeyedHost(t, "cfg")
	ts := servertest.Start(t, servertest.WithProviders(func(c *providers.Config) {
		c.Deployments = []providers.ModelDeployments{{Model: "local:cfg", Servers: []providers.Deployment{{Name: "cfg-1", BaseURL: up.URL, APIKey: "sk-config-1234"}}}}
	}))
	admin := servertest.AdminKey
	ok := map[string]any{"name": "d1", "model": "gpu:llama", "base_url": "http://10.0.0.5:8000/v1"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name   string
		method string
		path   string
		key    string
		body   any
		status int
		want   string
	}{
		{"bad url", "POST", "/v1/deployments", admin, with("base_url", "ftp://x"), 400, "base_url"},
		{"relative url", "POST", "/v1/deployments", admin, with("base_url", "/v1"), 400, "absolute http(s) URL"},
		{"negative weight", "POST", "/v1/deployments", admin, with("weight", -1), 400, "weight"},
		{"weight type", "POST", "/v1/deployments", admin, with("weight", "heavy"), 400, "weight"},
		{"bad name", "POST", "/v1/deployments", admin, with("name", "a b"), 400, "name"},
		{"bad model", "POST", "/v1/deployments", admin, with("model", "llama"), 400, "provider:model"},
		{"bad provider", "POST", "/v1/deployments", admin, with("model", "GPU box:llama"), 400, "model"},
		{"hearth provider", "POST", "/v1/deployments", admin, with("model", "hearth:echo"), 400, "hearth"},
		{"bad strategy", "POST", "/v1/deployments", admin, with("strategy", "random"), 400, "strategy"},
		{"negative tpm", "POST", "/v1/deployments", admin, with("tpm", -5), 400, "tpm"},
		{"config model", "POST", "/v1/deployments", admin, with("model", "local:cfg"), 409, "configuration"},
		{"not admin", "POST", "/v1/deployments", ts.UserWithKey("bob"), ok, 403, "operator"},
		{"not admin list", "GET", "/v1/deployments", ts.UserWithKey("carol"), nil, 403, "operator"},
		{"create", "POST", "/v1/deployments", admin, with("api_key", "sk-stored-9876"), 200, `"source":"stored"`},
		{"duplicate", "POST", "/v1/deployments", admin, ok, 409, "already exists"},
		{"other strategy", "POST", "/v1/deployments", admin, map[string]any{"name": "d2", "model": "gpu:llama", "base_url": "http://h/v1", "strategy": "latency"}, 200, "latency"},
		{"conflicting strategy", "PUT", "/v1/deployments/d1", admin, map[string]any{"strategy": "least-busy"}, 400, "strategy"},
		{"update bad weight", "PUT", "/v1/deployments/d1", admin, map[string]any{"weight": 5000}, 400, "weight"},
		{"rename", "PUT", "/v1/deployments/d1", admin, map[string]any{"name": "d9"}, 400, "renamed"},
		{"update missing", "PUT", "/v1/deployments/nope", admin, map[string]any{"weight": 2}, 404, "not found"},
		{"update config", "PUT", "/v1/deployments/cfg-1", admin, map[string]any{"weight": 2}, 409, "read-only"},
		{"delete config", "DELETE", "/v1/deployments/cfg-1", admin, nil, 409, "read-only"},
		{"get config", "GET", "/v1/deployments/cfg-1", admin, nil, 200, `"source":"config"`},
		{"get stored", "GET", "/v1/deployments/d1", admin, nil, 200, `"api_key_last4":"9876"`},
		{"delete missing", "DELETE", "/v1/deployments/nope", admin, nil, 404, "not found"},
	}
	for _, tc := range cases {
		r := ts.Do(tc.method, tc.path, tc.key, tc.body)
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.want) {
			t.Errorf("%s: %d %s, want %d containing %q", tc.name, r.Status, r.Body, tc.status, tc.want)
		}
	}
	r := ts.Do("GET", "/v1/deployments", admin, nil)
	mustStatus(t, r, 200)
	var list struct {
		Deployments []struct{ Name, Source string }
	}
	r.JSON(t, &list)
	body := string(r.Body)
	if strings.Contains(body, "sk-stored-9876") || strings.Contains(body, "sk-config-1234") || strings.Contains(body, "ciphertext") {
		t.Fatalf("listing leaks a key: %s", body)
	}
	if len(list.Deployments) != 3 || !strings.Contains(body, `"name":"cfg-1","model":"local:cfg"`) || !strings.Contains(body, `"source":"config"`) {
		t.Fatalf("listing: %s", body)
	}
}

// TestDeploymentsAPISurviveRestart: stored deployments are routed again
// after a restart; a restart whose configuration now declares their model
// serves the configured deployments only, and the stored ones come back
// once the configuration stops declaring it.
func TestDeploymentsAPISurviveRestart(t *testing.T) {
	stored, configured := newKeyedHost(t, "from-stored"), newKeyedHost(t, "from-config")
	dir := t.TempDir()
	ts := servertest.StartDir(t, dir)
	mustStatus(t, ts.Do("POST", "/v1/deployments", servertest.AdminKey, map[string]any{"name": "box", "model": "gpu:llama", "base_url": stored.URL, "api_key": "sk-kept"}), 200)
	ts.Stop()

	ts = servertest.StartDir(t, dir)
	if got := chatOnce(t, ts, "gpu:llama"); !strings.Contains(got, "from-stored") || stored.lastAuth() != "Bearer sk-kept" {
		t.Fatalf("after a restart: %s (sent %q)", got, stored.lastAuth())
	}
	ts.Stop()

	ts = servertest.StartDir(t, dir, servertest.WithProviders(func(c *providers.Config) {
		c.Deployments = []providers.ModelDeployments{{Model: "gpu:llama", Servers: []providers.Deployment{{Name: "cfg", BaseURL: configured.URL}}}}
	}))
	for range 3 {
		if got := chatOnce(t, ts, "gpu:llama"); !strings.Contains(got, "from-config") {
			t.Fatalf("with the model configured: %s", got)
		}
	}
	ts.Stop()

	ts = servertest.StartDir(t, dir)
	if got := chatOnce(t, ts, "gpu:llama"); !strings.Contains(got, "from-stored") {
		t.Fatalf("with the configuration gone: %s", got)
	}
}
