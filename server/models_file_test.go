package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/server/servertest"
)

// withModelsFile loads an operator models file into the test server's
// provider registry, as HEARTH_MODELS_FILE does at start.
func withModelsFile(t *testing.T, content string) servertest.Option {
	t.Helper()
	p := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := providers.LoadModelsFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return servertest.WithProviders(func(c *providers.Config) { c.Models = m })
}

// TestRetiredModelRefusedOnEverySurface: a run naming a retired model gets
// a 400 naming the model, the date and the replacement, in design.md's
// shape on the Langbase API and in OpenAI's on /openai/v1, and the
// provider is never called.
func TestRetiredModelRefusedOnEverySurface(t *testing.T) {
	up := newDownUpstream(t)
	up.up.Store(true)
	ts := servertest.Start(t, servertest.WithProvider("deepseek", up.URL+"/v1", "sk-test"),
		withModelsFile(t, "models:\n- {provider: deepseek, model: deepseek-v4-pro, retired: {date: '2026-12-01', replacement: deepseek-flash}}\n"))
	key := servertest.AdminKey
	want := `model \"deepseek:deepseek-chat\" was retired by deepseek on 2026-07-24; use \"deepseek:deepseek-v4-flash\" instead`

	// A pipe cannot be created on a retired model, and an agent run on
	// one is refused.
	r := ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "old", "model": "deepseek:deepseek-chat"})
	if r.Status != 400 || !strings.Contains(string(r.Body), want) || !strings.Contains(string(r.Body), `"field":"model"`) {
		t.Fatalf("pipe create: %d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/v1/agent/run", key, map[string]any{"model": "deepseek:deepseek-chat", "input": "hi"})
	var lb struct {
		Success bool
		Error   struct {
			Status  int
			Code    string
			Message string
		}
	}
	if err := json.Unmarshal(r.Body, &lb); err != nil || r.Status != 400 || lb.Success || lb.Error.Code != "BAD_REQUEST" ||
		!strings.Contains(string(r.Body), want) {
		t.Fatalf("agent run: %d %s", r.Status, r.Body)
	}

	r = ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "deepseek:deepseek-reasoner",
		"messages": []map[string]any{{"role": "user", "content": "hi"}}})
	var oai struct {
		Error struct {
			Message string
			Type    string
			Param   *string
		}
	}
	if err := json.Unmarshal(r.Body, &oai); err != nil || r.Status != 400 || oai.Error.Type != "invalid_request_error" ||
		!strings.Contains(oai.Error.Message, `"deepseek:deepseek-reasoner" was retired by deepseek on 2026-07-24`) {
		t.Fatalf("openai chat: %d %s", r.Status, r.Body)
	}

	// The operator's file retires a model the built-in catalogue lists.
	r = ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "deepseek:deepseek-v4-pro",
		"messages": []map[string]any{{"role": "user", "content": "hi"}}})
	if r.Status != 400 || !strings.Contains(string(r.Body), `retired by deepseek on 2026-12-01; use \"deepseek:deepseek-flash\" instead`) {
		t.Fatalf("operator retirement: %d %s", r.Status, r.Body)
	}
	if n := up.calls.Load(); n != 0 {
		t.Errorf("%d upstream calls, want none", n)
	}
	r = ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "deepseek:deepseek-v4-flash",
		"messages": []map[string]any{{"role": "user", "content": "hi"}}})
	mustStatus(t, r, 200)
}

// TestModelsListShowsSourceAndRetirement: /v1/models marks each entry's
// source and retirement and shows the operator's prices and tiers;
// /openai/v1/models leaves retired models out.
func TestModelsListShowsSourceAndRetirement(t *testing.T) {
	ts := servertest.Start(t, servertest.WithProvider("openai", "http://127.0.0.1:1/v1", "sk-test"),
		withModelsFile(t, `models:
- provider: openai
  model: gpt-9
  prompt: 2
  completion: 8
  context_window: 400000
  tiers: [{above_prompt_tokens: 272000, prompt: 4, completion: 12}]
- provider: openai
  model: gpt-4o
  prompt: 1
  completion: 4
`))
	key := servertest.AdminKey
	r := ts.Do("GET", "/v1/models", key, nil)
	mustStatus(t, r, 200)
	var cat map[string][]map[string]any
	if err := json.Unmarshal(r.Body, &cat); err != nil {
		t.Fatalf("%v: %s", err, r.Body)
	}
	byID := map[string]map[string]any{}
	for _, list := range cat {
		for _, m := range list {
			byID[m["id"].(string)] = m
		}
	}
	if m := byID["openai:gpt-9"]; m == nil || m["source"] != "operator" || m["contextWindow"] != 400000.0 ||
		!strings.Contains(mustJSON(t, m["priceTiers"]), `"abovePromptTokens":272000,"completionCost":12,"promptCost":4`) {
		t.Errorf("gpt-9: %v", m)
	}
	if m := byID["openai:gpt-4o"]; m == nil || m["source"] != "operator" || m["promptCost"] != 1.0 {
		t.Errorf("gpt-4o: %v", m)
	}
	if m := byID["openai:gpt-4o-mini"]; m == nil || m["source"] != "builtin" {
		t.Errorf("gpt-4o-mini: %v", m)
	}
	if m := byID["google:gemini-2.5-pro"]; m == nil || !strings.Contains(mustJSON(t, m["retired"]), `"date":"2026-12-01","replacement":"gemini-3.8-flash"`) {
		t.Errorf("gemini-2.5-pro: %v", m)
	}

	r = ts.Do("GET", "/openai/v1/models", key, nil)
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.Body), `"openai:gpt-9"`) || strings.Contains(string(r.Body), `"google:gemini-2.5-pro"`) {
		t.Errorf("/openai/v1/models: %s", r.Body)
	}
}

// TestStoredPipeOnLaterRetiredModel: a pipe created before its model was
// retired (here by the operator's file, at the next start) fails its runs
// with the retirement, without calling the provider.
func TestStoredPipeOnLaterRetiredModel(t *testing.T) {
	up := newDownUpstream(t)
	up.up.Store(true)
	dir := t.TempDir()
	ts := servertest.StartDir(t, dir, servertest.WithProvider("openai", up.URL+"/v1", "sk-test"))
	key := servertest.AdminKey
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "aging", "model": "openai:gpt-4o-mini"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "aging", "messages": userMsg("hi")}), 200)
	ts.Stop()

	calls := up.calls.Load()
	ts = servertest.StartDir(t, dir, servertest.WithProvider("openai", up.URL+"/v1", "sk-test"),
		withModelsFile(t, "models:\n- {provider: openai, model: gpt-4o-mini, retired: {date: '2026-12-03', replacement: gpt-4.1-mini}}\n"))
	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "aging", "messages": userMsg("hi")})
	if r.Status != 400 || !strings.Contains(string(r.Body), `"code":"BAD_REQUEST"`) ||
		!strings.Contains(string(r.Body), `model \"openai:gpt-4o-mini\" was retired by openai on 2026-12-03; use \"openai:gpt-4.1-mini\" instead`) {
		t.Fatalf("run: %d %s", r.Status, r.Body)
	}
	if up.calls.Load() != calls {
		t.Error("the provider was called for a retired model")
	}
}
