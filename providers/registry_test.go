package providers_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

func TestModelIDs(t *testing.T) {
	reg, err := providers.New(providers.Config{Providers: map[string]providers.ProviderConfig{"openai": {APIKey: "sk-server"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"gpt-4o", ":gpt-4o", "openai:", ""} {
		if _, err := engine.ParseModelID("model", bad); code(err) != engine.CodeBadRequest {
			t.Errorf("ParseModelID(%q) = %v", bad, err)
		}
	}
	ref, err := engine.ParseModelID("model", "OpenAI:gpt-4o:latest")
	if err != nil || ref.Provider != "openai" || ref.Model != "gpt-4o:latest" {
		t.Errorf("ParseModelID = %+v, %v", ref, err)
	}
	_, err = reg.ChatModel(engine.ModelRef{Provider: "nosuch", Model: "m"})
	if e := asEngine(t, err); e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, "nosuch:m") || e.Field != "model" {
		t.Errorf("unknown provider: %+v", e)
	}
	_, err = reg.ChatModel(engine.ModelRef{Provider: "openai-compatible", Model: "m"})
	if e := asEngine(t, err); e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, "HEARTH_OPENAI_COMPATIBLE_BASE_URL") {
		t.Errorf("unconfigured openai-compatible: %+v", e)
	}
	if _, err := reg.ChatModel(engine.ModelRef{Provider: "hearth", Model: "gpt-4o"}); code(err) != engine.CodeBadRequest {
		t.Errorf("hearth:gpt-4o: %v", err)
	}
	if _, err := reg.Moderator("anthropic"); code(err) != engine.CodeBadRequest {
		t.Errorf("anthropic moderator: %v", err)
	}
	if reg.ServerKey("openai") != "sk-server" || reg.ServerKey("anthropic") != "" {
		t.Error("ServerKey")
	}
	if !reg.NeedsKey("openai") || reg.NeedsKey("ollama") || reg.NeedsKey("hearth") || !reg.NeedsKey("cohere") {
		t.Error("NeedsKey")
	}
}

func TestConfigValidation(t *testing.T) {
	if _, err := providers.New(providers.Config{Providers: map[string]providers.ProviderConfig{"openai": {BaseURL: "not a url"}}}); err == nil {
		t.Error("bad base URL accepted")
	}
	if _, err := providers.New(providers.Config{Providers: map[string]providers.ProviderConfig{"lmstudio": {}}}); err == nil {
		t.Error("unknown provider without base URL accepted")
	}
	reg, err := providers.New(providers.Config{Providers: map[string]providers.ProviderConfig{"lmstudio": {BaseURL: "http://127.0.0.1:1234/v1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.ChatModel(engine.ModelRef{Provider: "lmstudio", Model: "qwen"}); err != nil {
		t.Errorf("extra compatible provider: %v", err)
	}
	base, key := providers.EnvNames("openai-compatible")
	if base != "HEARTH_OPENAI_COMPATIBLE_BASE_URL" || key != "HEARTH_OPENAI_COMPATIBLE_API_KEY" {
		t.Errorf("EnvNames = %s %s", base, key)
	}
	for _, p := range providers.KnownProviders() {
		if p != "openai-compatible" && providers.DefaultBaseURL(p) == "" {
			t.Errorf("%s has no default base URL", p)
		}
	}
}

func TestCatalogue(t *testing.T) {
	reg, _ := providers.New(providers.Config{})
	cat := reg.Catalogue()
	for _, p := range []string{"openai", "anthropic", "google", "cohere", "groq", "together", "mistral", "hearth"} {
		if len(cat[p]) == 0 {
			t.Errorf("no catalogue entries for %s", p)
		}
	}
	images := 0
	for p, models := range cat {
		for _, m := range models {
			if m.Provider != p || !strings.HasPrefix(m.ID, p+":") {
				t.Errorf("entry %+v under %s", m, p)
			}
			switch m.Type {
			case "text":
				if m.PromptCost == nil || m.CompletionCost == nil || m.BasePrice != nil {
					t.Errorf("text entry %+v", m)
				}
			case "image":
				images++
				if m.BasePrice == nil || len(m.SupportedSizes) == 0 || m.PromptCost != nil {
					t.Errorf("image entry %+v", m)
				}
			default:
				t.Errorf("type %q", m.Type)
			}
		}
	}
	if images < 4 {
		t.Errorf("only %d image models", images)
	}
	usd, ok := providers.Cost(engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"}, 1_000_000, 500_000)
	if !ok || usd < 0.449 || usd > 0.451 {
		t.Errorf("Cost = %v, %v", usd, ok)
	}
	if _, ok := providers.Cost(engine.ModelRef{Provider: "openai", Model: "nope"}, 1, 1); ok {
		t.Error("Cost of unknown model")
	}
}
