package providers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/hearth-dev/hearth/engine"
)

// HearthProvider is the name of the built-in offline test-double provider.
const HearthProvider = "hearth"

// wire formats with a hand-written adapter; everything else speaks OpenAI.
var nativeURLs = map[string]string{
	"anthropic": "https://api.anthropic.com/v1",
	"google":    "https://generativelanguage.googleapis.com/v1beta",
	"cohere":    "https://api.cohere.com/v2",
}

// KnownProviders lists the built-in providers configurable through
// HEARTH_<P>_BASE_URL / HEARTH_<P>_API_KEY (see EnvNames), sorted. The
// offline "hearth" provider needs no configuration and is not listed.
func KnownProviders() []string {
	names := make([]string, 0, len(hosts)+len(nativeURLs))
	for n := range hosts {
		names = append(names, n)
	}
	for n := range nativeURLs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefaultBaseURL returns a provider's public base URL, including its
// version segment ("" for openai-compatible, which has none).
func DefaultBaseURL(provider string) string {
	if u, ok := nativeURLs[provider]; ok {
		return u
	}
	if h, ok := hosts[provider]; ok {
		return h.baseURL
	}
	return ""
}

// Registry implements engine.Providers over the configured adapters. It is
// safe for concurrent use and holds no per-request state.
type Registry struct {
	chat      map[string]engine.ChatModel
	embed     map[string]engine.Embedder
	moderate  map[string]engine.Moderator
	keys      map[string]string
	needKey   map[string]bool
	noURL     map[string]bool
	providers []string
	pool      *keyPool
	// pooledChat holds each chat adapter behind the key pool, boxed once
	// when the registry is built rather than on every ChatModel call. It
	// is read-only after New and made from the configuration alone:
	// nothing changes with several Hearth nodes.
	pooledChat map[string]engine.ChatModel
	// upstream is a caller over the registry's shared client, kept for
	// CloseIdleConnections (h1_close.go).
	upstream caller
	// models are the catalogue and rules in force (nil: built-in only).
	models *Models
	// deploy is the models with deployments and the alias providers they
	// declare, swapped whole when stored deployments change (deploy.go).
	deploy atomic.Pointer[deployedSet]
	// deploying is what later swaps rebuild from (deploy_stored.go).
	deploying deploySource
}

var _ engine.Providers = (*Registry)(nil)

// New builds the registry. It validates base URLs and does no I/O.
func New(cfg Config) (*Registry, error) {
	mk := cfg.callers()
	r := &Registry{chat: map[string]engine.ChatModel{}, embed: map[string]engine.Embedder{},
		moderate: map[string]engine.Moderator{}, keys: map[string]string{}, needKey: map[string]bool{}, noURL: map[string]bool{},
		pool: newKeyPool(), upstream: mk(""), models: cfg.Models}
	if r.models == nil {
		r.models = &Models{}
	}
	baseURL := cfg.BaseURL
	for name, pc := range cfg.Providers {
		name = strings.ToLower(name)
		r.keys[name] = pc.APIKey
		if _, builtin := hosts[name]; !builtin && nativeURLs[name] == "" && name != HearthProvider && pc.BaseURL == "" {
			return nil, fmt.Errorf("providers: %s is not a built-in provider, so it needs a base URL", name)
		}
	}
	addOpenAI := func(name string, h *host) error {
		u, err := baseURL(name)
		if err != nil {
			return err
		}
		r.needKey[name] = h.needKey
		hc := *h
		hc.models = r.models
		h = &hc
		if u == "" {
			r.noURL[name] = true
			return nil
		}
		o := &OpenAI{host: h, baseURL: u, chatURL: u + "/chat/completions", c: mk(name)}
		r.chat[name] = o
		if h.embeddings {
			r.embed[name] = o
		}
		if h.moderations {
			r.moderate[name] = o
		}
		return nil
	}
	for name, h := range hosts {
		if err := addOpenAI(name, h); err != nil {
			return nil, err
		}
	}
	for name := range cfg.Providers {
		name = strings.ToLower(name)
		if _, builtin := hosts[name]; builtin || nativeURLs[name] != "" || name == HearthProvider {
			continue
		}
		h := *hosts["openai-compatible"]
		h.name = name
		if err := addOpenAI(name, &h); err != nil {
			return nil, err
		}
	}
	for name := range nativeURLs {
		u, err := baseURL(name)
		if err != nil {
			return nil, err
		}
		r.needKey[name] = true
		switch name {
		case "anthropic":
			r.chat[name] = &Anthropic{baseURL: u, c: mk(name), models: r.models}
		case "google":
			g := &Google{baseURL: u, c: mk(name), models: r.models}
			r.chat[name], r.embed[name] = g, g
		case "cohere":
			c := &Cohere{baseURL: u, c: mk(name), models: r.models}
			r.chat[name], r.embed[name] = c, c
		}
	}
	r.chat[HearthProvider] = Echo{}
	r.embed[HearthProvider] = HashEmbed{}
	r.moderate[HearthProvider] = HashModerator{}
	r.pooledChat = make(map[string]engine.ChatModel, len(r.chat))
	for name, m := range r.chat {
		r.pooledChat[name] = pooledChat{inner: m, pool: r.pool, provider: name}
	}
	for name := range r.needKey {
		r.providers = append(r.providers, name)
	}
	r.providers = append(r.providers, HearthProvider)
	sort.Strings(r.providers)
	if err := r.buildDeployments(cfg, mk); err != nil {
		return nil, err
	}
	return r, nil
}

// CheckModelsFile reports the first HEARTH_MODELS_FILE entry naming a
// provider the registry does not know: built in, configured, or the alias
// of a deployment from the configuration or the store. Call it once the
// stored deployments are in force (SetStored), so their aliases count.
func (r *Registry) CheckModelsFile() error {
	return r.models.CheckProviders(r.Known)
}

func (r *Registry) unknown(ref engine.ModelRef) error {
	if err := r.aliasError(ref); err != nil {
		return err
	}
	if r.noURL[ref.Provider] {
		env, _ := EnvNames(ref.Provider)
		return engine.FieldError("model", "provider %q of model %q has no base URL configured (set %s)", ref.Provider, ref.String(), env)
	}
	return engine.FieldError("model", "unknown provider %q in model %q", ref.Provider, ref.String())
}

// ChatModel returns the chat adapter of ref's provider.
func (r *Registry) ChatModel(ref engine.ModelRef) (engine.ChatModel, error) {
	if ret := r.models.retirement(ref.Provider, ref.Model); ret != nil {
		return nil, retiredError(ref, ret)
	}
	if m, ok := r.deployedChatModel(ref); ok {
		return m, nil
	}
	if m, ok := r.pooledChat[ref.Provider]; ok {
		if ref.Provider == HearthProvider {
			if err := checkEchoModel(ref.Model); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	return nil, r.unknown(ref)
}

// Embedder returns the embedding adapter of ref's provider.
func (r *Registry) Embedder(ref engine.ModelRef) (engine.Embedder, error) {
	if e, ok := r.embed[ref.Provider]; ok {
		if ref.Provider == HearthProvider && ref.Model != HashEmbedModel {
			return nil, engine.FieldError("embedding_model", "hearth has no embedding model %q (the offline test double is hearth:%s)", ref.Model, HashEmbedModel)
		}
		return pooledEmbedder{inner: e, pool: r.pool, provider: ref.Provider}, nil
	}
	if _, ok := r.chat[ref.Provider]; ok || slices.Contains(r.deployedNow().aliases, ref.Provider) {
		return nil, engine.FieldError("embedding_model", "provider %q of model %q has no embedding models", ref.Provider, ref.String())
	}
	return nil, r.unknown(ref)
}

// Moderator returns the moderation adapter of a provider (openai, hearth).
func (r *Registry) Moderator(provider string) (engine.Moderator, error) {
	if m, ok := r.moderate[provider]; ok {
		return pooledModerator{inner: m, pool: r.pool, provider: provider}, nil
	}
	return nil, engine.Errorf(engine.CodeBadRequest, "provider %q offers no moderation", provider)
}

// ServerKey returns the configured server-wide key of a provider.
func (r *Registry) ServerKey(provider string) string { return r.keys[provider] }

// NeedsKey reports whether calls to the provider need a key: false for
// ollama, openai-compatible (and extra compatible providers) and hearth.
func (r *Registry) NeedsKey(provider string) bool { return r.needKey[provider] }

// Catalogue returns the /v1/models catalogue of every provider, with the
// operator's entries (HEARTH_MODELS_FILE) laid over the built-in ones.
func (r *Registry) Catalogue() map[string][]engine.ModelInfo {
	return r.withDeployed(r.models.catalogue(r.Providers()))
}

// Providers lists the registry's provider names, sorted: the built-in and
// configured ones and the aliases deployments declare.
func (r *Registry) Providers() []string {
	out := append([]string(nil), r.providers...)
	if set := r.deployedNow(); len(set.aliases) > 0 {
		out = append(out, set.aliases...)
		sort.Strings(out)
	}
	return out
}

// Known reports whether the provider is built in, configured or an alias
// some deployment declares.
func (r *Registry) Known(provider string) bool {
	return r.baseKnown(provider) || slices.Contains(r.deployedNow().aliases, provider)
}

// baseKnown reports whether the provider is built in or configured.
func (r *Registry) baseKnown(provider string) bool {
	if provider == HearthProvider {
		return true
	}
	_, ok := r.needKey[provider]
	return ok
}

// CostOf returns the USD cost of a call's usage at the prices in force,
// cached prompt tokens at the provider's cache-read price (see CostOf).
func (r *Registry) CostOf(ref engine.ModelRef, u *engine.Usage) (float64, bool) {
	return r.models.costOf(ref, u)
}

// Cost returns the USD cost of a text call at the prices in force (the
// operator's over the built-in list prices), tiered by prompt size.
func (r *Registry) Cost(ref engine.ModelRef, promptTokens, completionTokens int) (float64, bool) {
	return r.models.cost(ref, promptTokens, completionTokens)
}

// SetApplied puts the entries `hearth apply` stored (nil: none) under the
// HEARTH_MODELS_FILE entries, for every call from now on. Entries naming
// a provider the registry does not know (an alias whose deployments are
// gone) are left out, and the returned error names each; the others are
// in force all the same.
func (r *Registry) SetApplied(m *Models) error {
	kept, err := m.keepKnown(r.Known)
	r.models.applied.Store(kept)
	return err
}
