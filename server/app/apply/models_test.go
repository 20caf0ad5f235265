package apply_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app/apply"
	"github.com/hearth-dev/hearth/server/servertest"
)

// gpt7Models declares a model newer than Hearth's rules: a family rule
// like gpt-6's and a price for one model.
const gpt7Models = `models:
  - provider: openai
    pattern: "gpt-7*"
    rules: {like: gpt-6-sol}
  - provider: openai
    model: gpt-7-preview
    prompt: 3
    completion: 30
    context_window: 500000
`

// gpt7Fake is an OpenAI fake that refuses sampling parameters and stop on
// gpt-7 models, as the real API does on its reasoning models.
func gpt7Fake(t *testing.T) *fake.Server {
	f := fake.NewOpenAI()
	t.Cleanup(f.Close)
	f.AddModelCheck(`^gpt-7`, []string{"temperature", "top_p", "presence_penalty", "frequency_penalty", "stop"},
		[]string{"none", "low", "medium", "high"}, "max_completion_tokens")
	return f
}

func writeDecl(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// modelInfo returns the /v1/models entry of id on ts (nil when missing).
func modelInfo(t *testing.T, ts *servertest.Server, id string) map[string]any {
	t.Helper()
	var cat map[string][]map[string]any
	ts.Do("GET", "/v1/models", servertest.AdminKey, nil).JSON(t, &cat)
	for _, models := range cat {
		for _, m := range models {
			if m["id"] == id {
				return m
			}
		}
	}
	return nil
}

func runGPT7(ts *servertest.Server) *servertest.Response {
	return ts.Do("POST", "/v1/pipes/run", servertest.AdminKey, map[string]any{"name": "p7",
		"messages": []any{map[string]any{"role": "user", "content": "hi"}}})
}

// TestApplyModels: model entries in apply files are validated, stored on
// the server and used at once (the strict fake accepts a call it refused
// before; /v1/models shows the price); a second apply changes nothing;
// export writes them back in a form apply reads to an empty plan; prune
// removes them.
func TestApplyModels(t *testing.T) {
	f := gpt7Fake(t)
	ts := servertest.Start(t, servertest.WithProvider("openai", f.BaseURL(), "sk-test"))
	if r := ts.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{"name": "p7", "model": "openai:gpt-7-preview"}); r.Status != 200 {
		t.Fatalf("create pipe: %d %s", r.Status, r.Body)
	}
	if r := runGPT7(ts); r.Status == 200 {
		t.Fatal("the strict fake accepted the pipe defaults on gpt-7 without a rule; the test shows nothing")
	}
	dir := writeDecl(t, map[string]string{"models.yaml": gpt7Models})
	plan := run(t, ts, dir, apply.Options{})
	if got := strings.Join(actions(plan), ","); got != "create models models" {
		t.Fatalf("plan = %s", got)
	}
	if r := runGPT7(ts); r.Status != 200 {
		t.Fatalf("run with the applied rule: %d %s", r.Status, r.Body)
	}
	if body := f.LastRequest().JSON(); body["temperature"] != nil || body["max_completion_tokens"] != 25000.0 {
		t.Errorf("sent %v: want no temperature and gpt-6's 25000 tokens", body)
	}
	mi := modelInfo(t, ts, "openai:gpt-7-preview")
	if mi == nil || mi["promptCost"] != 3.0 || mi["contextWindow"] != 500000.0 || mi["source"] != "operator" {
		t.Errorf("/v1/models entry %v", mi)
	}
	if p := run(t, ts, dir, apply.Options{}); len(p.Changes) != 0 {
		t.Errorf("second apply: %v", actions(p))
	}
	out := t.TempDir()
	if _, err := apply.Export(context.Background(), apply.ServicesOf(ts.App, nil), out); err != nil {
		t.Fatal(err)
	}
	exported, err := apply.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := apply.Build(context.Background(), apply.ServicesOf(ts.App, func(string) string { return "x" }), exported, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Changes {
		if c.Kind == "models" {
			t.Errorf("applying the export changes the models: %s", c.Action)
		}
	}
	empty := writeDecl(t, map[string]string{"pipes.yaml": "pipes:\n  - name: p7\n    model: openai:gpt-7-preview\n"})
	plan = run(t, ts, empty, apply.Options{Prune: true})
	if !strings.Contains(strings.Join(actions(plan), ","), "delete models models") {
		t.Fatalf("prune plan = %v", actions(plan))
	}
	if r := runGPT7(ts); r.Status == 200 {
		t.Error("the rule still applies after prune")
	}
	if modelInfo(t, ts, "openai:gpt-7-preview") != nil {
		t.Error("the pruned model is still listed")
	}
}

// TestApplyModelsErrors: a bad entry is refused when the files are read,
// naming the file, the entry and the field; an entry declared in two
// files names both; an unknown provider is refused by the plan.
func TestApplyModelsErrors(t *testing.T) {
	for _, c := range []struct {
		files map[string]string
		want  []string
	}{
		{map[string]string{"m.yaml": "models:\n  - {provider: openai, model: gpt-7, prompt: 1}\n"},
			[]string{"m.yaml: models[0] (openai:gpt-7): prompt, completion: give both prices or neither"}},
		{map[string]string{"m.yaml": "models:\n  - {provider: anthropic, pattern: 'claude-9*', rules: {drop: [stop]}}\n"},
			[]string{"m.yaml: models[0] (anthropic:claude-9*): rules: json: unknown field \"drop\""}},
		{map[string]string{"a.yaml": "models:\n  - {provider: openai, model: gpt-7, prompt: 1, completion: 2}\n",
			"b.yaml": "models:\n  - {provider: openai, model: gpt-7, retired: {date: '2027-01-01'}}\n"},
			[]string{"b.yaml: models[0] (openai:gpt-7): already declared in ", "a.yaml"}},
	} {
		_, err := apply.Load(writeDecl(t, c.files))
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: err = %v, want %q", c.files, err, w)
			}
		}
	}
	ts := servertest.Start(t)
	spec, err := apply.Load(writeDecl(t, map[string]string{"m.yaml": "models:\n  - {provider: acme, model: x, prompt: 1, completion: 2}\n"}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = apply.Build(context.Background(), apply.ServicesOf(ts.App, nil), spec, apply.Options{})
	if err == nil || !strings.Contains(err.Error(), `models: models[0] (acme:x): provider: "acme" is not a built-in or configured provider`) {
		t.Errorf("unknown provider: %v", err)
	}
}

// TestApplyModelsUnderFile: HEARTH_MODELS_FILE's entries win over the
// applied ones field by field; the applied ones win over the built-in
// catalogue.
func TestApplyModelsUnderFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "models.yaml")
	os.WriteFile(p, []byte("models:\n  - {provider: openai, model: gpt-7-preview, prompt: 5, completion: 50}\n"), 0o644)
	file, err := providers.LoadModelsFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ts := servertest.Start(t, servertest.WithProviders(func(c *providers.Config) { c.Models = file }))
	run(t, ts, writeDecl(t, map[string]string{"m.yaml": gpt7Models + "  - {provider: openai, model: gpt-6-sol, prompt: 9, completion: 90}\n"}), apply.Options{})
	if mi := modelInfo(t, ts, "openai:gpt-7-preview"); mi["promptCost"] != 5.0 || mi["contextWindow"] != 500000.0 {
		t.Errorf("gpt-7-preview: %v, want the file's price and the applied context window", mi)
	}
	if mi := modelInfo(t, ts, "openai:gpt-6-sol"); mi["promptCost"] != 9.0 {
		t.Errorf("gpt-6-sol: %v, want the applied price over the built-in one", mi)
	}
}

// TestApplyModelsCluster: entries applied through one node reach the
// other node's registry through the change feed, and a node started later
// reads them from the shared store.
func TestApplyModelsCluster(t *testing.T) {
	f := gpt7Fake(t)
	url := servertest.DatabaseURL(t)
	nodes := servertest.StartNodes(t, url, 2, servertest.WithProvider("openai", f.BaseURL(), "sk-test"))
	run(t, nodes[0], writeDecl(t, map[string]string{"models.yaml": gpt7Models}), apply.Options{})
	deadline := time.Now().Add(20 * time.Second)
	for modelInfo(t, nodes[1], "openai:gpt-7-preview") == nil {
		if time.Now().After(deadline) {
			t.Fatal("the applied model never reached the other node")
		}
		time.Sleep(20 * time.Millisecond)
	}
	late := servertest.StartNodes(t, url, 1, servertest.WithProvider("openai", f.BaseURL(), "sk-test"))[0]
	if mi := modelInfo(t, late, "openai:gpt-7-preview"); mi == nil || mi["promptCost"] != 3.0 {
		t.Errorf("a node started after the apply: %v", mi)
	}
}

// TestAppliedModelsSurviveRestart: the stored entries are read again when
// a server starts on the same data; of a stored list, the entries the node
// cannot use (a provider it does not configure) are left out one by one
// and the others are in force, at once and after a restart, which the
// list does not stop.
func TestAppliedModelsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	ts := servertest.StartDir(t, dir)
	run(t, ts, writeDecl(t, map[string]string{"m.yaml": gpt7Models}), apply.Options{})
	ts.Stop()
	ts = servertest.StartDir(t, dir)
	if mi := modelInfo(t, ts, "openai:gpt-7-preview"); mi == nil || mi["promptCost"] != 3.0 {
		t.Fatalf("after a restart: %v", mi)
	}
	partly := []json.RawMessage{json.RawMessage(`{"provider":"acme","model":"x","prompt":1,"completion":2}`),
		json.RawMessage(`{"provider":"openai","model":"gpt-7-preview","prompt":4,"completion":40}`)}
	if err := ts.App.AppliedModels.Set(context.Background(), partly); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if r := ts.Do("GET", "/v1/models", servertest.AdminKey, nil); r.Status != 200 || modelInfo(t, ts, "acme:x") != nil {
			t.Errorf("%s: %d %s", when, r.Status, r.Body)
		}
		if mi := modelInfo(t, ts, "openai:gpt-7-preview"); mi == nil || mi["promptCost"] != 4.0 {
			t.Errorf("%s: the usable entry of the stored list is not in force: %v", when, mi)
		}
	}
	check("a list with an entry the node cannot use")
	ts.Stop()
	ts = servertest.StartDir(t, dir)
	check("restarted on that list")
}

// TestApplyModelsForDeployedAlias: model entries may name the alias
// provider of a deployment the same apply stores: the plan accepts them,
// and once applied the entries are in force (/v1/models shows the price).
// Once the alias's deployment is deleted, a restart leaves out that entry
// alone, the other entries stay in force, and storing a deployment again
// brings it back; a provider found nowhere is still refused by the plan.
func TestApplyModelsForDeployedAlias(t *testing.T) {
	data := t.TempDir()
	ts := servertest.StartDir(t, data)
	dir := writeDecl(t, map[string]string{
		"deployments.yaml": "deployments:\n  - {name: box-a, model: 'gpu:llama', base_url: 'http://127.0.0.1:1/v1'}\n",
		"models.yaml": "models:\n  - {provider: gpu, model: llama, prompt: 0.5, completion: 1.5, context_window: 32000}\n" +
			"  - {provider: openai, model: gpt-7-preview, prompt: 3, completion: 30}\n",
	})
	plan := run(t, ts, dir, apply.Options{})
	if got := strings.Join(actions(plan), ","); !strings.Contains(got, "create models models") || !strings.Contains(got, "create deployment box-a") {
		t.Fatalf("plan = %s", got)
	}
	inForce := func(when string, gpu bool) {
		t.Helper()
		if mi := modelInfo(t, ts, "gpu:llama"); gpu != (mi != nil && mi["promptCost"] == 0.5 && mi["contextWindow"] == 32000.0 && mi["source"] == "operator") {
			t.Fatalf("%s: gpu:llama in /v1/models %v, want the applied entry %v", when, mi, gpu)
		}
		if mi := modelInfo(t, ts, "openai:gpt-7-preview"); mi == nil || mi["promptCost"] != 3.0 {
			t.Fatalf("%s: openai:gpt-7-preview in /v1/models %v", when, mi)
		}
	}
	inForce("applied", true)
	ctx := context.Background()
	if err := ts.App.StoredDeployments.Delete(ctx, "box-a"); err != nil {
		t.Fatal(err)
	}
	inForce("deployment deleted", false)
	ts.Stop()
	ts = servertest.StartDir(t, data)
	inForce("restarted without the deployment", false)
	if _, err := ts.App.StoredDeployments.Create(ctx, engine.StoredDeployment{Name: "box-b", Model: "gpu:llama", BaseURL: "http://127.0.0.1:2/v1"}); err != nil {
		t.Fatal(err)
	}
	inForce("deployment stored again", true)
	spec, err := apply.Load(writeDecl(t, map[string]string{
		"deployments.yaml": "deployments:\n  - {name: box-a, model: 'gpu:llama', base_url: 'http://127.0.0.1:1/v1'}\n",
		"models.yaml":      "models:\n  - {provider: gpu, model: llama, prompt: 0.5, completion: 1.5}\n  - {provider: gpux, model: llama, prompt: 1, completion: 2}\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = apply.Build(context.Background(), apply.ServicesOf(ts.App, nil), spec, apply.Options{})
	if err == nil || !strings.Contains(err.Error(), `models: models[1] (gpux:llama): provider: "gpux" is not a built-in or configured provider`) {
		t.Errorf("unknown provider: %v", err)
	}
}
