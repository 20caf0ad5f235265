package server

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// LocalModelLister asks local model servers (Ollama, vLLM, llama.cpp) which
// models they have; providers.Registry implements it.
type LocalModelLister interface {
	LocalProviders() []string
	LocalModels(ctx context.Context, provider string) ([]engine.ModelInfo, bool, error)
}

// localModelsTimeout bounds one listing, so a server that does not answer
// cannot hold /v1/models up for long.
const localModelsTimeout = 3 * time.Second

// CacheLocalModels keeps each provider's answer (or failure) for ttl, so
// /v1/models, which needs no key, asks a local server at most once per
// ttl per node, one request at a time. In cluster mode every node keeps its
// own cache and asks the servers itself; answers age out after ttl, so
// nodes agree within it and nothing needs sharing.
func CacheLocalModels(l LocalModelLister, ttl time.Duration) LocalModelLister {
	return &localModelCache{l: l, ttl: ttl, entries: map[string]*localModelEntry{}}
}

type localModelCache struct {
	l       LocalModelLister
	ttl     time.Duration
	mu      sync.Mutex
	entries map[string]*localModelEntry
}

type localModelEntry struct {
	mu     sync.Mutex
	at     time.Time
	models []engine.ModelInfo
	ok     bool
	err    error
}

func (c *localModelCache) LocalProviders() []string { return c.l.LocalProviders() }

func (c *localModelCache) LocalModels(ctx context.Context, provider string) ([]engine.ModelInfo, bool, error) {
	c.mu.Lock()
	e := c.entries[provider]
	if e == nil {
		e = &localModelEntry{}
		c.entries[provider] = e
	}
	c.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.at.IsZero() && time.Since(e.at) < c.ttl {
		return e.models, e.ok, e.err
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), localModelsTimeout)
	defer cancel()
	e.models, e.ok, e.err = c.l.LocalModels(lctx, provider)
	e.at = time.Now()
	return e.models, e.ok, e.err
}

// withLocalModels returns the catalogue with the entries of local
// providers replaced by the models their servers have; a server that
// cannot be asked lists none. cat itself is not changed.
func (s *Server) withLocalModels(ctx context.Context, cat map[string][]engine.ModelInfo) map[string][]engine.ModelInfo {
	if s.deps.LocalModels == nil {
		return cat
	}
	cat = maps.Clone(cat)
	for _, p := range s.deps.LocalModels.LocalProviders() {
		models, ok, err := s.deps.LocalModels.LocalModels(ctx, p)
		switch {
		case !ok:
		case err != nil:
			s.log.Debug("local model server not listed in /v1/models", "provider", p, "err", err)
			delete(cat, p)
		default:
			cat[p] = models
		}
	}
	return cat
}
