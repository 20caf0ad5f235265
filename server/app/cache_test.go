package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestSemanticCacheEmbedderMustResolve: semantic mode starts with a model
// that embeds and refuses to start, naming the setting, with one that does not.
func TestSemanticCacheEmbedderMustResolve(t *testing.T) {
	cfg := servertest.Config(t.TempDir(), "http://127.0.0.1:1")
	cfg.Cache = &engine.ResponseCacheConfig{Semantic: &engine.SemanticCacheConfig{Model: engine.ModelRef{Provider: "hearth", Model: "hash-embed"}}}
	a, err := app.New(cfg)
	if err != nil {
		t.Fatalf("hearth:hash-embed: %v", err)
	}
	if a.Cache == nil || a.Cache.Similarity() != engine.DefaultCacheSimilarity {
		t.Fatalf("cache %v", a.Cache)
	}
	a.Close(context.Background())
	cfg = servertest.Config(t.TempDir(), "http://127.0.0.1:1")
	cfg.Cache = &engine.ResponseCacheConfig{Semantic: &engine.SemanticCacheConfig{Model: engine.ModelRef{Provider: "hearth", Model: "echo"}}}
	if a, err = app.New(cfg); err == nil || !strings.Contains(err.Error(), "HEARTH_CACHE_EMBEDDING_MODEL hearth:echo") {
		if a != nil {
			a.Close(context.Background())
		}
		t.Fatalf("hearth:echo as the cache's embedder: %v", err)
	}
}
