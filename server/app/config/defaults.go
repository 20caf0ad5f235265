package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// ModelDefaults are the models of a pipe or memory created without one
// (docs/getting-started.md#defaults). Config embeds them, so their JSON keys sit at the
// top level of the config file. They are resolved at start from this
// node's configuration and only fill in what a create leaves out (the
// stored pipe or memory then names its model), so the nodes of a cluster
// agree as long as they share their settings, as they must for providers.
type ModelDefaults struct {
	// DefaultModel is the chat model of a pipe created without a model.
	DefaultModel string `json:"default_model"`
	// DefaultEmbeddingModel is the embedder of a memory created without one.
	DefaultEmbeddingModel string `json:"default_embedding_model"`
	// from says where the defaults came from, for the start-up log.
	from string
}

// usualModels are each provider's usual chat and embedding models, in the
// order the defaults are chosen from when the settings are unset. embed is
// "" for a provider without embeddings.
var usualModels = []struct{ provider, chat, embed string }{
	{"openai", "openai:gpt-4o-mini", "openai:text-embedding-3-large"},
	{"anthropic", "anthropic:claude-sonnet-4-5", ""},
	{"google", "google:gemini-3.5-flash", "google:gemini-embedding-001"},
	{"cohere", "cohere:command-a-03-2025", "cohere:embed-v4.0"},
	{"mistral", "mistral:mistral-small-latest", ""},
	{"groq", "groq:llama-3.3-70b-versatile", ""},
	{"deepseek", "deepseek:deepseek-v4-flash", ""},
	{"xai", "xai:grok-3-mini", ""},
	{"together", "together:meta-llama/Llama-3.3-70B-Instruct-Turbo", ""},
	{"openrouter", "openrouter:openai/gpt-4o-mini", ""},
	{"ollama", "ollama:llama3.2", "ollama:nomic-embed-text"},
}

// Offline defaults: the hearth:echo test double and keyword-only memories.
const (
	offlineChatModel  = "hearth:" + providers.EchoModel
	offlineEmbedModel = "hearth:bm25"
)

// validateDefaults checks that the providers of set defaults are known,
// then fills the unset ones (resolveModelDefaults).
func (c *Config) validateDefaults() []error {
	var errs []error
	for _, v := range []struct{ env, val string }{
		{"HEARTH_DEFAULT_MODEL", c.DefaultModel}, {"HEARTH_DEFAULT_EMBEDDING_MODEL", c.DefaultEmbeddingModel},
	} {
		if v.val == "" {
			continue
		}
		errs = append(errs, c.checkProvider(v.env, v.val)...)
	}
	c.from = c.resolveModelDefaults()
	return errs
}

// modelRef allows a provider:model id, or nothing.
func modelRef(example string) *rule {
	return textRule("provider:model such as "+example, "gpt-4o", func(s string) bool {
		if s = strings.TrimSpace(s); s == "" {
			return true
		}
		_, err := engine.ParseModelID("model", s)
		return err == nil
	})
}

// checkProvider refuses a provider:model id (checked by modelRef) whose
// provider is neither built in, nor hearth, nor declared by
// HEARTH_PROVIDERS or a deployment.
func (c *Config) checkProvider(env, id string) []error {
	ref, err := engine.ParseModelID("model", strings.TrimSpace(id))
	if err != nil {
		return nil
	}
	if _, extra := c.Providers[ref.Provider]; !extra && ref.Provider != providers.HearthProvider && !slices.Contains(providers.KnownProviders(), ref.Provider) && !c.deploymentProvider(ref.Provider) {
		return []error{fmt.Errorf("%s %q: unknown provider %q (built in: %s, hearth; others need HEARTH_PROVIDERS)", env, id, ref.Provider, strings.Join(providers.KnownProviders(), ", "))}
	}
	return nil
}

// configured reports whether the operator set a provider up: a server key,
// or an explicit base URL for a provider that needs no key (ollama,
// openai-compatible).
func configured(pc providers.ProviderConfig, ok bool) bool {
	return ok && (pc.APIKey != "" || pc.BaseURL != "")
}

// resolveModelDefaults fills unset defaults: the first configured
// provider's usual model, else the offline hearth models. It returns a
// line for the start-up log saying where each came from.
func (c *Config) resolveModelDefaults() string {
	var from []string
	if c.DefaultModel == "" {
		c.DefaultModel, from = offlineChatModel, append(from, "chat: no provider configured, so the offline test double (set HEARTH_OPENAI_API_KEY or HEARTH_DEFAULT_MODEL)")
		for _, u := range usualModels {
			if pc, ok := c.Providers[u.provider]; configured(pc, ok) {
				c.DefaultModel, from[len(from)-1] = u.chat, "chat: "+u.provider+" is configured"
				break
			}
		}
	} else {
		from = append(from, "chat: HEARTH_DEFAULT_MODEL")
	}
	if c.DefaultEmbeddingModel == "" {
		c.DefaultEmbeddingModel, from = offlineEmbedModel, append(from, "embeddings: no embedding provider configured, so keyword-only memories")
		for _, u := range usualModels {
			if pc, ok := c.Providers[u.provider]; u.embed != "" && configured(pc, ok) {
				c.DefaultEmbeddingModel, from[len(from)-1] = u.embed, "embeddings: "+u.provider+" is configured"
				break
			}
		}
	} else {
		from = append(from, "embeddings: HEARTH_DEFAULT_EMBEDDING_MODEL")
	}
	return strings.Join(from, "; ")
}
