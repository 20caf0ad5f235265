package config

import (
	"strings"
	"testing"
)

// Unset defaults come from the first configured provider, else the
// offline hearth models; set ones win and must be provider:model ids.
func TestModelDefaults(t *testing.T) {
	for name, tc := range map[string]struct {
		env              map[string]string
		args             []string
		model, embedding string
		why              string
	}{
		"nothing configured": {nil, nil, "hearth:echo", "hearth:bm25", "no provider configured"},
		"openai key":         {map[string]string{"HEARTH_OPENAI_API_KEY": "sk-x"}, nil, "openai:gpt-4o-mini", "openai:text-embedding-3-large", "openai is configured"},
		"anthropic only": {map[string]string{"HEARTH_ANTHROPIC_API_KEY": "sk-ant"}, nil,
			"anthropic:claude-sonnet-4-5", "hearth:bm25", "keyword-only memories"},
		"ollama base url": {map[string]string{"HEARTH_OLLAMA_BASE_URL": "http://gpu:11434/v1", "HEARTH_ANTHROPIC_API_KEY": "sk-ant"}, nil,
			"anthropic:claude-sonnet-4-5", "ollama:nomic-embed-text", "embeddings: ollama is configured"},
		"settings win": {map[string]string{"HEARTH_OPENAI_API_KEY": "sk-x", "HEARTH_DEFAULT_MODEL": "openai:gpt-5-mini"},
			[]string{"-default-embedding-model", "hearth:hash-embed"}, "openai:gpt-5-mini", "hearth:hash-embed", "HEARTH_DEFAULT_EMBEDDING_MODEL"},
	} {
		cfg, _, err := Load("serve", tc.args, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cfg.DefaultModel != tc.model || cfg.DefaultEmbeddingModel != tc.embedding || !strings.Contains(cfg.from, tc.why) {
			t.Errorf("%s: %q %q (%s), want %q %q (%s)", name, cfg.DefaultModel, cfg.DefaultEmbeddingModel, cfg.from, tc.model, tc.embedding, tc.why)
		}
		if ac := cfg.App(make([]byte, 32), nil, "test"); ac.DefaultModel != tc.model || ac.DefaultEmbeddingModel != tc.embedding {
			t.Errorf("%s: app config %q %q", name, ac.DefaultModel, ac.DefaultEmbeddingModel)
		}
	}
	for env, want := range map[string]string{
		"gpt-4o":     `HEARTH_DEFAULT_MODEL: must be provider:model such as openai:gpt-4o-mini, got "gpt-4o"`,
		"opanai:gpt": `HEARTH_DEFAULT_MODEL "opanai:gpt": unknown provider "opanai"`,
	} {
		cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_DEFAULT_MODEL": env}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("bad default %q: %v", env, err)
		}
	}
	// An extra provider of HEARTH_PROVIDERS is known.
	cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_PROVIDERS": "myvllm", "HEARTH_MYVLLM_BASE_URL": "http://gpu:8000/v1",
		"HEARTH_DEFAULT_MODEL": "myvllm:qwen3"}))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil || cfg.DefaultModel != "myvllm:qwen3" {
		t.Fatalf("extra provider default: %v %q", err, cfg.DefaultModel)
	}
}
