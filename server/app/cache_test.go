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

// storeKeys counts the keys of a's store under prefix.
func storeKeys(t *testing.T, a *app.App, prefix string) int {
	t.Helper()
	n := 0
	err := a.Store.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan(prefix, "", func(string, []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCacheSweepsLeftoversAtStart: restarted in exact mode, a server drops
// the semantic index an earlier start filled and keeps the entries;
// restarted with the cache off, it deletes the entries too.
func TestCacheSweepsLeftoversAtStart(t *testing.T) {
	dir := t.TempDir()
	embedder := engine.ModelRef{Provider: "hearth", Model: "hash-embed"}
	start := func(cache *engine.ResponseCacheConfig) *app.App {
		t.Helper()
		cfg := servertest.Config(dir, "http://127.0.0.1:1")
		cfg.Cache = cache
		a, err := app.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := start(&engine.ResponseCacheConfig{Semantic: &engine.SemanticCacheConfig{Model: embedder}})
	m, err := a.Deps.Providers.ChatModel(engine.ModelRef{Provider: "hearth", Model: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"first question", "second question"} {
		ctx, tk := engine.WithCacheTicket(context.Background(), "alice", engine.CacheOn)
		if _, err := m.Chat(ctx, &engine.ChatRequest{Model: "echo", Messages: []engine.Message{{Role: "user", Content: engine.TextContent(q)}}}); err != nil {
			t.Fatal(err)
		}
		if tk.Outcome() != engine.CacheMiss {
			t.Fatalf("%s: %q", q, tk.Outcome())
		}
	}
	index := "idx/" + engine.SemanticIndexID(embedder) + "/"
	if storeKeys(t, a, index) == 0 || storeKeys(t, a, "rcacheidx/") != 1 {
		t.Fatalf("semantic mode stored %d index keys, %d index records", storeKeys(t, a, index), storeKeys(t, a, "rcacheidx/"))
	}
	a.Close(context.Background())

	a = start(&engine.ResponseCacheConfig{})
	if n := storeKeys(t, a, index) + storeKeys(t, a, "rcacheidx/"); n != 0 {
		t.Fatalf("%d keys of the semantic index left in exact mode", n)
	}
	if n, err := a.Cache.Len(context.Background()); err != nil || n != 2 {
		t.Fatalf("%d entries in exact mode (%v), want the 2 stored", n, err)
	}
	a.Close(context.Background())

	a = start(nil)
	defer a.Close(context.Background())
	if n := storeKeys(t, a, "rcache/") + storeKeys(t, a, "rcacheexp/"); n != 0 {
		t.Fatalf("%d cache keys left with the cache off", n)
	}
}
