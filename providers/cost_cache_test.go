package providers_test

import (
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestHaiku55TieredPrice: Claude Haiku 5.5 costs $0.10/$0.50 per million
// tokens up to 100,000 prompt tokens and $0.50/$2.50 for a whole call
// above that.
func TestHaiku55TieredPrice(t *testing.T) {
	ref := engine.ModelRef{Provider: "anthropic", Model: "claude-haiku-5-5"}
	below, ok := providers.Cost(ref, 100_000, 10_000)
	if want := (100_000*0.1 + 10_000*0.5) / 1e6; !ok || !near(below, want) {
		t.Errorf("at 100,000 prompt tokens: %v %v, want %v", below, ok, want)
	}
	above, ok := providers.Cost(ref, 100_001, 10_000)
	if want := (100_001*0.5 + 10_000*2.5) / 1e6; !ok || !near(above, want) {
		t.Errorf("above 100,000 prompt tokens: %v %v, want %v", above, ok, want)
	}
}

// TestAnthropicCacheWritesCosted: the strict Anthropic fake reports cache
// writes split by lifetime; the adapter keeps the split and CostOf bills
// five-minute writes at 1.25 and one-hour writes at 2 times the prompt
// price of the call's tier, reads at 0.1.
func TestAnthropicCacheWritesCosted(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	// 150,000 prompt tokens: Haiku 5.5's tier above 100,000 ($0.50/$2.50).
	f.SetDefault(fake.Reply{Text: "ok", Usage: fake.Usage{PromptTokens: 10_000, CompletionTokens: 1_000,
		CacheReadTokens: 40_000, CacheCreationTokens: 100_000, CacheCreation1hTokens: 30_000}})
	for _, stream := range []bool{false, true} {
		m := anthropicModel(t, f, "claude-haiku-5-5")
		req := &engine.ChatRequest{Model: "claude-haiku-5-5", APIKey: "k", MaxTokens: intp(4000), ReasoningEffort: "low", Messages: []engine.Message{userMsg("hi")}}
		_, u := callOnce(t, m, req, stream)
		if u == nil || u.PromptTokens != 150_000 || u.CacheCreationTokens != 100_000 || u.CacheCreation1hTokens != 30_000 {
			t.Fatalf("stream=%v: usage %+v", stream, u)
		}
		usd, ok := providers.CostOf(engine.ModelRef{Provider: "anthropic", Model: "claude-haiku-5-5"}, u)
		want := (0.5*(10_000+40_000*0.1+70_000*1.25+30_000*2) + 2.5*float64(u.CompletionTokens)) / 1e6
		if !ok || !near(usd, want) {
			t.Errorf("stream=%v: cost %v, want %v", stream, usd, want)
		}
	}
}

// TestCachePricingFromModelsFile: an operator sets cache pricing on a
// model (OpenAI bills no write premium, so only reads differ), /v1/models
// shows it, and the catalogue marks estimated prices.
func TestCachePricingFromModelsFile(t *testing.T) {
	u := &engine.Usage{PromptTokens: 1000, CompletionTokens: 100, PromptTokensDetails: &engine.PromptTokensDetails{CachedTokens: 600}}
	ref := engine.ModelRef{Provider: "openai", Model: "gpt-6-sol"}
	plain, _ := providers.CostOf(ref, u)
	if want := (1000*2.5 + 100*20.0) / 1e6; !near(plain, want) {
		t.Fatalf("built-in gpt-6-sol without cache pricing: %v, want %v", plain, want)
	}
	m := loadModels(t, "models:\n- {provider: openai, model: gpt-6-sol, cache: {read: 0.1, write_5m: 1, write_1h: 1}}\n")
	reg, err := providers.New(providers.Config{Models: m})
	if err != nil {
		t.Fatal(err)
	}
	usd, ok := reg.CostOf(ref, u)
	if want := (400*2.5 + 600*0.25 + 100*20.0) / 1e6; !ok || !near(usd, want) {
		t.Errorf("with the operator's cache pricing: %v %v, want %v", usd, ok, want)
	}
	info := map[string]engine.ModelInfo{}
	for _, models := range reg.Catalogue() {
		for _, mi := range models {
			info[mi.ID] = mi
		}
	}
	if c := info["openai:gpt-6-sol"].CachePricing; c == nil || c.Read != 0.1 || c.Write5m != 1 || info["openai:gpt-6-sol"].Source != "operator" {
		t.Errorf("openai:gpt-6-sol in /v1/models: %+v", info["openai:gpt-6-sol"])
	}
	if c := info["anthropic:claude-haiku-5-5"].CachePricing; c == nil || c.Read != 0.1 || c.Write5m != 1.25 || c.Write1h != 2 {
		t.Errorf("anthropic:claude-haiku-5-5 cache pricing: %+v", c)
	}
	if !info["openai:gpt-5.2"].PriceEstimated || info["anthropic:claude-haiku-5-5"].PriceEstimated {
		t.Errorf("estimated marks: gpt-5.2 %v, claude-haiku-5-5 %v", info["openai:gpt-5.2"].PriceEstimated, info["anthropic:claude-haiku-5-5"].PriceEstimated)
	}
	for _, bad := range []string{
		"models:\n- {provider: openai, model: gpt-6-sol, cache: {read: -1}}\n",
		"models:\n- {provider: openai, model: gpt-image-2, image: 0.1, cache: {read: 0.5}}\n",
		"models:\n- {provider: openai, model: gpt-6-sol, cache: {reed: 0.5}}\n",
	} {
		if _, err := providers.LoadModelsFile(writeModels(t, "m.yaml", bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
