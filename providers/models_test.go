package providers_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
)

// writeModels writes a models file into a temp dir and returns its path.
func writeModels(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadModels loads a models file, failing the test on error.
func loadModels(t *testing.T, content string) *providers.Models {
	t.Helper()
	m, err := providers.LoadModelsFile(writeModels(t, "models.yaml", content))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestModelsFileErrors: every mistake is refused with an error naming the
// file, the entry and the field.
func TestModelsFileErrors(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"unknown top-level", "model: []\n", `unknown field "model"`},
		{"no models", "{}\n", `models: the file declares no models`},
		{"unknown field", "models:\n- {provider: openai, model: gpt-9, prompt: 1, completion: 2, promt: 3}\n", `models[0]: json: unknown field "promt"`},
		{"unknown rule field", "models:\n- {provider: openai, pattern: 'gpt-9*', rules: {dropp: [stop]}}\n", `models[0] (openai:gpt-9*): rules: json: unknown field "dropp" (this provider's rules take like, reasoning, drop`},
		{"no provider", "models:\n- {model: gpt-9}\n", `models[0] (:gpt-9): provider: required`},
		{"model and pattern", "models:\n- {provider: openai, model: a, pattern: 'b*'}\n", `models[0] (openai:ab*): model, pattern: exactly one`},
		{"star in model", "models:\n- {provider: openai, model: 'gpt-9*'}\n", `model: "gpt-9*" is not a model id`},
		{"bad pattern", "models:\n- {provider: openai, pattern: 'gpt 9('}\n", `models[0] (openai:gpt 9(): pattern: "gpt 9(" is not a pattern`},
		{"negative price", "models:\n- {provider: openai, model: gpt-9, prompt: -1, completion: 2}\n", `models[0] (openai:gpt-9): prompt: must not be negative`},
		{"one price", "models:\n- {provider: openai, model: gpt-9, prompt: 1}\n", `prompt, completion: give both prices or neither`},
		{"tier order", "models:\n- {provider: google, model: g, prompt: 1, completion: 2, tiers: [{above_prompt_tokens: 200000, prompt: 2, completion: 4}, {above_prompt_tokens: 100, prompt: 3, completion: 5}]}\n", `models[0] (google:g): tiers[1].above_prompt_tokens: must be positive and larger than the tier before (200000)`},
		{"negative tier", "models:\n- {provider: google, model: g, prompt: 1, completion: 2, tiers: [{above_prompt_tokens: 5, prompt: -2, completion: 4}]}\n", `tiers[0].prompt: must not be negative`},
		{"bad date", "models:\n- {provider: openai, model: gpt-9, retired: {date: 'next week'}}\n", `models[0] (openai:gpt-9): retired.date: "next week" is not a date`},
		{"bad drop", "models:\n- {provider: openai, pattern: 'gpt-9*', rules: {drop: [temprature]}}\n", `rules.drop[0]: "temprature" is not a parameter a rule can drop`},
		{"bad effort", "models:\n- {provider: openai, pattern: 'gpt-9*', rules: {reasoning_effort: {extreme: high}}}\n", `rules.reasoning_effort: "extreme" is not a Hearth effort`},
		{"OpenAI rule on anthropic", "models:\n- {provider: anthropic, pattern: 'claude-9*', rules: {drop: [stop]}}\n", `rules: json: unknown field "drop" (this provider's rules take like, sampling`},
		{"duplicate", "models:\n- {provider: openai, model: gpt-9}\n- {provider: openai, model: gpt-9}\n", `models[1] (openai:gpt-9): the same model as models[0]`},
		{"negative window", "models:\n- {provider: openai, model: gpt-9, context_window: -5}\n", `context_window: must be a positive number`},
	}
	for _, c := range cases {
		p := writeModels(t, "models.yaml", c.content)
		_, err := providers.LoadModelsFile(p)
		if err == nil {
			t.Errorf("%s: loaded, want an error with %q", c.name, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want the file name and %q", c.name, err, c.want)
		}
	}
}

// TestModelsFileUnknownProvider: CheckModelsFile refuses an entry naming
// a provider that is neither built in, nor configured, nor the alias of a
// deployment, naming the file, the entry and the rule; an alias declared
// by a configured or a stored deployment counts as known.
func TestModelsFileUnknownProvider(t *testing.T) {
	m := loadModels(t, "models:\n- {provider: openai, model: gpt-9, prompt: 1, completion: 2}\n- {provider: acme, model: x, prompt: 1, completion: 2}\n")
	reg, err := providers.New(providers.Config{Models: m})
	if err != nil {
		t.Fatalf("New checks the models file before stored deployments load: %v", err)
	}
	err = reg.CheckModelsFile()
	want := m.File() + `: models[1] (acme:x): provider: "acme" is not a built-in or configured provider, nor the alias of a deployment (configured or stored)`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	acme := []providers.ModelDeployments{{Model: "acme:x", Servers: []providers.Deployment{{Name: "a1", BaseURL: "http://127.0.0.1:1/v1"}}}}
	if err := reg.SetStored(acme); err != nil {
		t.Fatal(err)
	}
	if err := reg.CheckModelsFile(); err != nil {
		t.Fatalf("a stored deployment's alias: %v", err)
	}
	reg, err = providers.New(providers.Config{Models: m, Deployments: acme})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.CheckModelsFile(); err != nil {
		t.Fatalf("a configured deployment's alias: %v", err)
	}
}

// TestModelsFileOverridesCatalogue: the operator's price wins over the
// built-in one, an added model appears with its source, tiers price long
// prompts, and a JSON file works as well as YAML.
func TestModelsFileOverridesCatalogue(t *testing.T) {
	p := writeModels(t, "models.json", `{"models": [
		{"provider": "openai", "model": "gpt-4o", "prompt": 1, "completion": 4},
		{"provider": "openai", "model": "gpt-9", "prompt": 2, "completion": 8, "context_window": 400000,
		 "tiers": [{"above_prompt_tokens": 272000, "prompt": 4, "completion": 12}]},
		{"provider": "openai", "pattern": "gpt-4.1*", "retired": {"date": "2026-11-30", "replacement": "gpt-9"}}
	]}`)
	m, err := providers.LoadModelsFile(p)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := providers.New(providers.Config{Models: m})
	if err != nil {
		t.Fatal(err)
	}
	cost := func(model string, in, out int) float64 {
		usd, ok := reg.Cost(engine.ModelRef{Provider: "openai", Model: model}, in, out)
		if !ok {
			t.Fatalf("%s: no price", model)
		}
		return usd
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }
	if got := cost("gpt-4o", 1_000_000, 1_000_000); !near(got, 5) {
		t.Errorf("gpt-4o cost = %v, want the operator's 1 + 4", got)
	}
	if got := cost("gpt-9", 100_000, 1_000_000); !near(got, 0.2+8) {
		t.Errorf("gpt-9 short prompt cost = %v, want 0.2 + 8", got)
	}
	if got := cost("gpt-9", 300_000, 1_000_000); !near(got, 1.2+12) {
		t.Errorf("gpt-9 long prompt cost = %v, want the tier's 1.2 + 12", got)
	}
	if got := cost("gpt-4.1-mini", 1_000_000, 0); !near(got, 0.4) {
		t.Errorf("gpt-4.1-mini cost = %v, want its built-in 0.4 (a retirement keeps the prices)", got)
	}
	infos := map[string]engine.ModelInfo{}
	for _, mi := range reg.Catalogue()["openai"] {
		infos[mi.ID] = mi
	}
	if mi := infos["openai:gpt-4o"]; mi.Source != "operator" || *mi.PromptCost != 1 {
		t.Errorf("gpt-4o = %+v, want the operator's price and source", mi)
	}
	if mi := infos["openai:gpt-4o-mini"]; mi.Source != "builtin" || mi.Retired != nil {
		t.Errorf("gpt-4o-mini = %+v, want a built-in entry", mi)
	}
	mi, ok := infos["openai:gpt-9"]
	if !ok || mi.Source != "operator" || mi.ContextWindow != 400000 || len(mi.PriceTiers) != 1 || mi.PriceTiers[0].AbovePromptTokens != 272000 {
		t.Errorf("gpt-9 = %+v (listed %v), want the added model with its window and tier", mi, ok)
	}
	if mi := infos["openai:gpt-4.1-nano"]; mi.Retired == nil || mi.Retired.Date != "2026-11-30" || mi.Source != "operator" {
		t.Errorf("gpt-4.1-nano = %+v, want retired by the operator's pattern", mi)
	}
	if _, err := reg.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4.1"}); err == nil ||
		!strings.Contains(err.Error(), `"openai:gpt-4.1" was retired by openai on 2026-11-30; use "openai:gpt-9" instead`) {
		t.Errorf("gpt-4.1 ChatModel err = %v, want the operator's retirement", err)
	}
}

// TestRetiredModelRefused: a retired catalogue model is refused before
// any upstream call, naming the date and the replacement.
func TestRetiredModelRefused(t *testing.T) {
	f := fake.NewDeepSeek()
	defer f.Close()
	reg := newRegistry(t, "deepseek", f, nil)
	_, err := reg.ChatModel(engine.ModelRef{Provider: "deepseek", Model: "deepseek-chat"})
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Field != "model" ||
		!strings.Contains(e.Message, `"deepseek:deepseek-chat" was retired by deepseek on 2026-07-24; use "deepseek:deepseek-v4-flash" instead`) {
		t.Fatalf("err = %#v", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("%d upstream calls, want none", n)
	}
	if _, err := reg.ChatModel(engine.ModelRef{Provider: "deepseek", Model: "deepseek-v4-flash"}); err != nil {
		t.Errorf("current model refused: %v", err)
	}
}

// TestBuiltinTieredCost: a built-in long-context tier prices the whole
// call once the prompt passes its threshold.
func TestBuiltinTieredCost(t *testing.T) {
	reg, err := providers.New(providers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var tiered engine.ModelInfo
	for _, models := range reg.Catalogue() {
		for _, mi := range models {
			if len(mi.PriceTiers) > 0 && mi.Retired == nil && tiered.ID == "" {
				tiered = mi
			}
		}
	}
	if tiered.ID == "" {
		t.Fatal("no built-in model has price tiers")
	}
	ref, _ := engine.ParseModelID("model", tiered.ID)
	tier := tiered.PriceTiers[0]
	below, _ := providers.Cost(ref, tier.AbovePromptTokens, 1000)
	above, _ := providers.Cost(ref, tier.AbovePromptTokens+1, 1000)
	wantBelow := (float64(tier.AbovePromptTokens)**tiered.PromptCost + 1000**tiered.CompletionCost) / 1e6
	wantAbove := (float64(tier.AbovePromptTokens+1)*tier.PromptCost + 1000*tier.CompletionCost) / 1e6
	if math.Abs(below-wantBelow) > 1e-9 || math.Abs(above-wantAbove) > 1e-9 {
		t.Errorf("%s: cost at the threshold %v (want %v), above it %v (want %v)", tiered.ID, below, wantBelow, above, wantAbove)
	}
}

// TestOperatorRuleAgainstStrictFake: a model newer than Hearth's rules
// refuses sampling parameters; the strict fake refuses the call until an
// operator rule drops them and maps the effort, which the adapter then
// applies.
func TestOperatorRuleAgainstStrictFake(t *testing.T) {
	f := fake.NewOpenAIHost("openai")
	defer f.Close()
	samplingAndStop := []string{"temperature", "top_p", "presence_penalty", "frequency_penalty", "stop"}
	f.AddModelCheck(`^gpt-7`, samplingAndStop, []string{"low", "medium", "high"}, "max_completion_tokens")
	call := func(m *providers.Models) error {
		reg, err := providers.New(providers.Config{Models: m, Timeout: 5 * time.Second, Retry: testRetry,
			Providers: map[string]providers.ProviderConfig{"openai": {BaseURL: f.BaseURL(), APIKey: "k"}}})
		if err != nil {
			t.Fatal(err)
		}
		cm, err := reg.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-7-preview"})
		if err != nil {
			t.Fatal(err)
		}
		req := fullRequest("gpt-7-preview")
		req.ReasoningEffort = "none"
		req.MaxTokens = intp(1000)
		_, err = cm.Chat(context.Background(), req)
		return err
	}
	if err := call(nil); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Fatalf("without an operator rule: err = %v, want the fake's refusal of temperature", err)
	}
	m := loadModels(t, `models:
  - provider: openai
    pattern: "gpt-7*"
    rules:
      reasoning: true
      drop: [temperature, top_p, presence_penalty, frequency_penalty, stop]
      reasoning_effort: {none: low, low: low, medium: medium, high: high}
      reasoning_max_tokens: 30000
`)
	f.Reset()
	if err := call(m); err != nil {
		t.Fatalf("with the operator rule: %v", err)
	}
	body := f.LastRequest().JSON()
	if body["reasoning_effort"] != "low" || body["max_completion_tokens"] != 30000.0 {
		t.Errorf("body = %v, want reasoning_effort low and max_completion_tokens 30000", body)
	}
	for _, p := range samplingAndStop {
		if _, ok := body[p]; ok {
			t.Errorf("%s sent", p)
		}
	}
}

// TestModelsFileReadmeExample: the example file of docs/providers.md's
// "Model rules and prices from a file" loads and builds a registry.
func TestModelsFileReadmeExample(t *testing.T) {
	guide, err := os.ReadFile("../docs/providers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(guide), "## Model rules and prices from a file")
	_, block, ok2 := strings.Cut(section, "```yaml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/providers.md has no example models file")
	}
	m := loadModels(t, block)
	reg, err := providers.New(providers.Config{Models: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.ChatModel(engine.ModelRef{Provider: "groq", Model: "llama-3.1-8b-instant"}); err == nil {
		t.Error("the example's retired model is not refused")
	}
	if usd, ok := reg.Cost(engine.ModelRef{Provider: "openai", Model: "gpt-7-preview"}, 300_000, 0); !ok || math.Abs(usd-1.5) > 1e-9 {
		t.Errorf("gpt-7-preview long prompt cost = %v %v, want the tier's 300k × $5/M", usd, ok)
	}
	// Every other example of the section (rules per family, hearth apply)
	// loads and builds a registry too.
	section, _, _ = strings.Cut(section, "\n## Failures")
	blocks := strings.Split(section, "```yaml\n")[1:]
	if len(blocks) < 3 {
		t.Fatalf("want the section's three examples, found %d", len(blocks))
	}
	for i, b := range blocks {
		b, _, _ = strings.Cut(b, "```")
		if _, err := providers.New(providers.Config{Models: loadModels(t, b)}); err != nil {
			t.Errorf("example %d: %v", i, err)
		}
	}
}

// TestBuiltinRetirementsNameLiveReplacements: every retired catalogue
// model names a replacement, and a listed replacement is not retired too.
func TestBuiltinRetirementsNameLiveReplacements(t *testing.T) {
	reg, err := providers.New(providers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for p, models := range reg.Catalogue() {
		byID := map[string]engine.ModelInfo{}
		for _, mi := range models {
			byID[mi.ID] = mi
		}
		for _, mi := range models {
			if mi.Retired == nil {
				continue
			}
			n++
			if mi.Retired.Replacement == "" {
				t.Errorf("%s: retired without a replacement", mi.ID)
			} else if r, ok := byID[p+":"+mi.Retired.Replacement]; ok && r.Retired != nil {
				t.Errorf("%s: its replacement %s is retired too", mi.ID, r.ID)
			}
		}
	}
	if n < 7 {
		t.Errorf("%d retired catalogue models, want at least the 7 of the December 2026 refresh", n)
	}
}

// TestDeepSeekFlashRules: deepseek-flash, the current name of DeepSeek's
// Flash model, thinks by default like the V4 models: its effort is
// mapped, "none" switches thinking off and the default max_tokens is
// raised, and DeepSeek's strict fake accepts the call.
func TestDeepSeekFlashRules(t *testing.T) {
	f := fake.NewDeepSeek()
	defer f.Close()
	req := fullRequest("deepseek-flash")
	req.ReasoningEffort, req.MaxTokens = "medium", intp(1000)
	body := sentBody(t, "deepseek", f, req)
	if body["reasoning_effort"] != "high" || body["max_tokens"] != 32768.0 {
		t.Errorf("medium: %v", body)
	}
	req = fullRequest("deepseek-flash")
	req.ReasoningEffort = "none"
	body = sentBody(t, "deepseek", f, req)
	if th, _ := body["thinking"].(map[string]any); th["type"] != "disabled" || body["reasoning_effort"] != nil {
		t.Errorf("none: %v", body)
	}
}
