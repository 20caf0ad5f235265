package config

import (
	"maps"
	"strings"
	"testing"
)

// TestAnthropicModelAliases: the alias table parses from the environment,
// and each malformed entry is refused naming the setting and the entry.
func TestAnthropicModelAliases(t *testing.T) {
	env := map[string]string{"HEARTH_ANTHROPIC_MODEL_ALIASES": " claude-sonnet-4-5=ollama:qwen3-coder, claude-haiku-4-5=ollama:qwen3:8b,*=pipe:coder "}
	cfg, _, err := Load("serve", nil, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"claude-sonnet-4-5": "ollama:qwen3-coder", "claude-haiku-4-5": "ollama:qwen3:8b", "*": "pipe:coder"}
	if got := cfg.App(make([]byte, 32), nil, "test").HTTP.AnthropicModelAliases; !maps.Equal(got, want) {
		t.Fatalf("aliases %v", got)
	}
	for bad, msg := range map[string]string{
		"claude-sonnet-4-5":         "want name=provider:model",
		"anthropic:claude=ollama:x": "bare model name",
		"a=ollama:x,a=ollama:y":     "mapped twice",
		"claude-haiku-4-5=qwen3":    "want provider:model",
		"claude-haiku-4-5=":         "want name=provider:model",
	} {
		cfg := Default()
		cfg.AnthropicModelAliases = bad
		err := cfg.checkOptions()
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "HEARTH_ANTHROPIC_MODEL_ALIASES") || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
