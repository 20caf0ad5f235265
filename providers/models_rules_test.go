package providers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
)

// modelWith returns provider's chat model over its fake with the
// operator's models (nil: built-in rules only).
func modelWith(t *testing.T, provider string, f *fake.Server, m *providers.Models, model string) engine.ChatModel {
	t.Helper()
	reg, err := providers.New(providers.Config{Models: m, Timeout: 5 * time.Second, Retry: testRetry,
		Providers: map[string]providers.ProviderConfig{provider: {BaseURL: f.BaseURL(), APIKey: "k"}}})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := reg.ChatModel(engine.ModelRef{Provider: provider, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// TestOperatorRuleAnthropic: a Claude model newer than Hearth's table
// takes the newest family's rule (adaptive thinking, effort), which the
// strict fake refuses for a 4.5-generation model; an operator rule "like
// claude-sonnet-4-5" makes the adapter send budget thinking instead.
func TestOperatorRuleAnthropic(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	const model = "claude-sage-4-5"
	req := func() *engine.ChatRequest {
		return &engine.ChatRequest{Model: model, APIKey: "k", MaxTokens: intp(16000), ReasoningEffort: "medium", Temperature: f64(0.7),
			Messages: []engine.Message{userMsg("hi")}}
	}
	if _, err := modelWith(t, "anthropic", f, nil, model).Chat(context.Background(), req()); err == nil {
		t.Fatal("the built-in rule for unknown Claude models was accepted by the fake; the test no longer shows the operator rule's effect")
	}
	for _, rules := range []string{"{like: claude-sonnet-4-5}",
		"{thinking: budget, sampling: true, one_sampler: true, effort: false, thinks_by_default: false, always_thinks: false, bound_thinking: false}"} {
		m := loadModels(t, "models:\n- {provider: anthropic, pattern: 'claude-sage-*', rules: "+rules+"}\n")
		f.Reset()
		if _, err := modelWith(t, "anthropic", f, m, model).Chat(context.Background(), req()); err != nil {
			t.Fatalf("rules %s: %v", rules, err)
		}
		body := f.LastRequest().JSON()
		th, _ := body["thinking"].(map[string]any)
		if th["type"] != "enabled" || th["budget_tokens"] != 8192.0 {
			t.Errorf("rules %s: thinking %v, want budget thinking at 8192 tokens", rules, body["thinking"])
		}
	}
}

// TestOperatorRuleGemini: a Gemini 2.x model unknown to Hearth takes the
// newest rule (thinking levels), which the strict fake refuses; an
// operator rule with a thinking budget fixes the call.
func TestOperatorRuleGemini(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	const model = "gemini-2.7-flash"
	req := func() *engine.ChatRequest {
		return &engine.ChatRequest{Model: model, APIKey: "k", MaxTokens: intp(1000), ReasoningEffort: "low", Messages: []engine.Message{userMsg("hi")}}
	}
	if _, err := modelWith(t, "google", f, nil, model).Chat(context.Background(), req()); err == nil || !strings.Contains(err.Error(), "Thinking level") {
		t.Fatalf("built-in rule: err = %v, want the fake's refusal of a thinking level", err)
	}
	m := loadModels(t, "models:\n- {provider: google, pattern: 'gemini-2.7-*', rules: {thinking_budget: true, default_temperature: false, signatures: false, reasoning_max_tokens: 20000}}\n")
	f.Reset()
	if _, err := modelWith(t, "google", f, m, model).Chat(context.Background(), req()); err != nil {
		t.Fatalf("with the operator rule: %v", err)
	}
	gc, _ := f.LastRequest().JSON()["generationConfig"].(map[string]any)
	tc, _ := gc["thinkingConfig"].(map[string]any)
	if tc["thinkingBudget"] != 1024.0 || gc["maxOutputTokens"] != 20000.0 {
		t.Errorf("generationConfig %v, want thinkingBudget 1024 and maxOutputTokens 20000", gc)
	}
}

// TestOperatorRuleCohere: a Cohere rule drops the parameters a model
// rejects.
func TestOperatorRuleCohere(t *testing.T) {
	f := fake.NewCohere()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	m := loadModels(t, "models:\n- {provider: cohere, pattern: 'command-z*', rules: {drop: [temperature, top_p, stop]}}\n")
	req := &engine.ChatRequest{Model: "command-z-reasoning", APIKey: "k", Temperature: f64(0.5), TopP: f64(0.9), Stop: []string{"END"},
		FrequencyPenalty: f64(0.2), Messages: []engine.Message{userMsg("hi")}}
	if _, err := modelWith(t, "cohere", f, m, req.Model).Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := f.LastRequest().JSON()
	for _, p := range []string{"temperature", "p", "stop_sequences"} {
		if _, ok := body[p]; ok {
			t.Errorf("%s sent: %v", p, body)
		}
	}
	if _, ok := body["frequency_penalty"]; !ok {
		t.Errorf("frequency_penalty, which the rule keeps, not sent: %v", body)
	}
}

// TestOperatorRuleErrors: a rule is checked against its provider's
// family, and an unknown field names the fields the family takes.
func TestOperatorRuleErrors(t *testing.T) {
	cases := []struct{ content, want string }{
		{"models:\n- {provider: anthropic, pattern: 'claude-9*', rules: {drop: [stop]}}\n", `rules: json: unknown field "drop" (this provider's rules take like, sampling, one_sampler, thinking`},
		{"models:\n- {provider: google, pattern: 'gemini-9*', rules: {reasoning_effort: {low: low}}}\n", `unknown field "reasoning_effort" (this provider's rules take like, thinking_levels`},
		{"models:\n- {provider: cohere, pattern: 'command-9*', rules: {reasoning: true}}\n", `unknown field "reasoning" (this provider's rules take drop)`},
		{"models:\n- {provider: hearth, pattern: 'x*', rules: {}}\n", `rules: the offline hearth provider takes every parameter`},
		{"models:\n- {provider: anthropic, pattern: 'claude-9*', rules: {thinking: deep}}\n", `rules.thinking: "deep" is not a thinking mode`},
		{"models:\n- {provider: anthropic, pattern: 'claude-9*', rules: {thinking: none}}\n", `rules.thinking: a model that thinks by default needs a thinking mode`},
		{"models:\n- {provider: google, pattern: 'gemini-9*', rules: {thinking_levels: [high, low]}}\n", `rules.thinking_levels[1]: "low" is not a level above the one before`},
		{"models:\n- {provider: google, pattern: 'gemini-9*', rules: {thinking_budget: true, thinking_levels: [low]}}\n", `a thinking budget or levels, not both`},
		{"models:\n- {provider: openai, pattern: 'gpt-9*', rules: {like: 'davinci'}}\n", `rules.like: no built-in rule of openai matches "davinci"`},
		{"models:\n- {provider: cohere, pattern: 'command-9*', rules: {drop: [seed]}}\n", `rules.drop[0]: "seed" is not a parameter a rule can drop`},
	}
	for _, c := range cases {
		_, err := providers.LoadModelsFile(writeModels(t, "models.yaml", c.content))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.content, err, c.want)
		}
	}
}

// TestOperatorRuleLike: an OpenAI-wire rule "like" a built-in model takes
// that rule and changes only the fields it sets.
func TestOperatorRuleLike(t *testing.T) {
	f := fake.NewOpenAIHost("openai")
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	f.AddModelCheck(`^gpt-7`, []string{"temperature", "top_p", "presence_penalty", "frequency_penalty", "stop"}, []string{"none", "low", "medium", "high"}, "max_completion_tokens")
	m := loadModels(t, "models:\n- {provider: openai, pattern: 'gpt-7*', rules: {like: gpt-6-sol, reasoning_max_tokens: 40000}}\n")
	req := fullRequest("gpt-7-mini")
	req.MaxTokens = intp(1000)
	if _, err := modelWith(t, "openai", f, m, "gpt-7-mini").Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := f.LastRequest().JSON()
	if body["reasoning_effort"] != "none" || body["max_completion_tokens"] != 40000.0 {
		t.Errorf("body %v: want gpt-6's tools rule (effort none) and the operator's 40000 tokens", body)
	}
}

// TestOperatorRuleEveryOpenAIWireHost: an operator rule reaches each
// OpenAI-wire host's requests (Mistral and DeepSeek included): a new model
// that refuses sampling parameters fails on the host's strict fake until
// the rule drops them.
func TestOperatorRuleEveryOpenAIWireHost(t *testing.T) {
	for _, c := range []struct {
		provider string
		newFake  func() *fake.Server
	}{
		{"xai", func() *fake.Server { return fake.NewOpenAIHost("xai") }},
		{"groq", func() *fake.Server { return fake.NewOpenAIHost("groq") }},
		{"mistral", func() *fake.Server { return fake.NewOpenAIHost("mistral") }},
		{"deepseek", fake.NewDeepSeek},
	} {
		f := c.newFake()
		f.SetDefault(fake.Reply{Text: "ok"})
		f.AddModelCheck(`nova-`, []string{"temperature", "top_p", "presence_penalty", "frequency_penalty"}, nil, "")
		model := "nova-2"
		if c.provider == "deepseek" {
			model = "deepseek-nova-2" // the DeepSeek fake serves deepseek-* models only
		}
		req := func() *engine.ChatRequest {
			return &engine.ChatRequest{Model: model, APIKey: "k", Temperature: f64(0.7), TopP: f64(1), MaxTokens: intp(100),
				Messages: []engine.Message{userMsg("hi")}}
		}
		if _, err := modelWith(t, c.provider, f, nil, model).Chat(context.Background(), req()); err == nil {
			t.Errorf("%s: the fake accepted sampling parameters without a rule", c.provider)
		}
		m := loadModels(t, "models:\n- {provider: "+c.provider+", pattern: '*nova-*', rules: {drop: [temperature, top_p, presence_penalty, frequency_penalty]}}\n")
		if _, err := modelWith(t, c.provider, f, m, model).Chat(context.Background(), req()); err != nil {
			t.Errorf("%s with the operator rule: %v", c.provider, err)
		}
		f.Close()
	}
}
