package apply_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/server/app/apply"
	"github.com/hearth-dev/hearth/server/servertest"
)

// gpuHost is a fake OpenAI-wire model server answering with its name and
// keeping the Authorization header of each chat call.
func gpuHost(t *testing.T, name string, auths *[]string, mu *sync.Mutex) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		*auths = append(*auths, name+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"llama","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, name)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// planEnv loads dir and plans it against ts with getenv, without applying.
func planEnv(t *testing.T, ts *servertest.Server, dir string, opts apply.Options, getenv func(string) string) *apply.Plan {
	t.Helper()
	spec, err := apply.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := apply.Build(context.Background(), apply.ServicesOf(ts.App, getenv), spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func deploymentsYAML(a, b string, weightB int) string {
	return fmt.Sprintf(`deployments:
  - name: box-a
    model: gpu:llama
    base_url: %s
    weight: 2
    key_env: HEARTH_DEPLOYMENT_BOX_A_KEY
  - name: box-b
    model: gpu:llama
    base_url: %s
    upstream_model: llama-3-70b
    weight: %d
    max_concurrency: 4
    tpm: 100000
`, a, b, weightB)
}

// TestApplyDeploymentsRoundTrip: deployments declared in an apply file are
// stored and routed at once, with the key from the environment; export
// writes back the same declarations; a second apply changes nothing; a
// changed weight, and a changed key, are exactly one update each; prune
// deletes an undeclared one.
func TestApplyDeploymentsRoundTrip(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	a, b := gpuHost(t, "from-a", &auths, &mu), gpuHost(t, "from-b", &auths, &mu)
	ts := servertest.Start(t)
	keys := map[string]string{"HEARTH_DEPLOYMENT_BOX_A_KEY": "sk-box-a-0001"}
	getenv := func(k string) string { return keys[k] }
	dir := writeDecl(t, map[string]string{"deployments.yaml": deploymentsYAML(a, b, 1)})

	p := planEnv(t, ts, dir, apply.Options{}, getenv)
	if got := strings.Join(actions(p), ","); got != "create deployment box-a,create deployment box-b" {
		t.Fatalf("first plan = %s", got)
	}
	if err := p.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r := ts.Do("POST", "/openai/v1/chat/completions", servertest.AdminKey, map[string]any{"model": "gpu:llama", "messages": []any{map[string]any{"role": "user", "content": "hi"}}})
		if r.Status != 200 {
			t.Fatalf("chat: %d %s", r.Status, r.Body)
		}
	}
	mu.Lock()
	got := strings.Join(auths, ",")
	mu.Unlock()
	if strings.Count(got, "from-a Bearer sk-box-a-0001") != 2 || strings.Count(got, "from-b") != 1 {
		t.Fatalf("calls %s: want two to box-a with its key and one to box-b (weights 2:1)", got)
	}

	out := t.TempDir()
	if _, err := apply.Export(context.Background(), apply.ServicesOf(ts.App, nil), out); err != nil {
		t.Fatal(err)
	}
	exported, err := apply.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	declared, err := apply.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(exported.Deployments, declared.Deployments) {
		t.Fatalf("export:\n%+v\nwant the declared:\n%+v", exported.Deployments, declared.Deployments)
	}
	if p := planEnv(t, ts, out, apply.Options{}, getenv); len(p.Changes) != 0 {
		t.Fatalf("applying the export: %v", actions(p))
	}
	if p := planEnv(t, ts, dir, apply.Options{}, getenv); len(p.Changes) != 0 {
		t.Fatalf("second apply: %v", actions(p))
	}

	changed := writeDecl(t, map[string]string{"deployments.yaml": deploymentsYAML(a, b, 5)})
	p = planEnv(t, ts, changed, apply.Options{}, getenv)
	if got := strings.Join(actions(p), ","); got != "update deployment box-b" || p.Changes[0].Detail != "weight 1 -> 5" {
		t.Fatalf("weight change plan = %s (%v)", got, p.Changes)
	}
	if err := p.Apply(context.Background()); err != nil {
		t.Fatal(err)
	}
	keys["HEARTH_DEPLOYMENT_BOX_A_KEY"] = "sk-box-a-0002"
	p = planEnv(t, ts, changed, apply.Options{}, getenv)
	if got := strings.Join(actions(p), ","); got != "update deployment box-a" || p.Changes[0].Detail != "key" {
		t.Fatalf("key change plan = %s (%v)", got, p.Changes)
	}

	onlyB := writeDecl(t, map[string]string{"d.yaml": fmt.Sprintf("deployments:\n  - name: box-b\n    model: gpu:llama\n    base_url: %s\n    upstream_model: llama-3-70b\n    weight: 5\n    max_concurrency: 4\n    tpm: 100000\n", b)})
	if p := planEnv(t, ts, onlyB, apply.Options{}, getenv); len(p.Changes) != 0 {
		t.Fatalf("without prune nothing is deleted: %v", actions(p))
	}
	p = planEnv(t, ts, onlyB, apply.Options{Prune: true}, getenv)
	if got := strings.Join(actions(p), ","); got != "delete deployment box-a" {
		t.Fatalf("prune plan = %s", got)
	}
}

// TestApplyDeploymentsErrors: an inline key is refused when the files are
// read; a missing key variable, a deployment declared twice and a model
// the configuration declares are refused by the plan or its run.
func TestApplyDeploymentsErrors(t *testing.T) {
	ts := servertest.Start(t)
	getenv := func(string) string { return "" }
	inline := writeDecl(t, map[string]string{"d.yaml": "deployments:\n  - name: x\n    model: gpu:l\n    base_url: http://h/v1\n    key: sk-inline\n"})
	if _, err := apply.Load(inline); err == nil || !strings.Contains(err.Error(), "deployments[0].key") {
		t.Fatalf("inline key: %v", err)
	}
	for _, c := range []struct{ yaml, want string }{
		{"deployments:\n  - name: x\n    model: gpu:l\n    base_url: http://h/v1\n    key_env: NOT_SET\n", "NOT_SET is not set"},
		{"deployments:\n  - name: x\n    model: gpu:l\n    base_url: http://h/v1\n  - name: x\n    model: gpu:m\n    base_url: http://h/v1\n", "declared twice"},
	} {
		spec, err := apply.Load(writeDecl(t, map[string]string{"d.yaml": c.yaml}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = apply.Build(context.Background(), apply.ServicesOf(ts.App, getenv), spec, apply.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
	spec, err := apply.Load(writeDecl(t, map[string]string{"d.yaml": "deployments:\n  - name: x\n    model: gpu:l\n    base_url: ftp://h\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apply.Build(context.Background(), apply.ServicesOf(ts.App, getenv), spec, apply.Options{}); err == nil || !strings.Contains(err.Error(), "deployment x: base_url") {
		t.Fatalf("bad base_url: %v", err)
	}
}
