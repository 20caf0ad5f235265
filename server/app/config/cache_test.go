package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestCacheConfigSemantic: HEARTH_CACHE=semantic with an embedding model and
// a similarity reaches the application's configuration; bad values stop the
// start with an error naming the setting.
func TestCacheConfigSemantic(t *testing.T) {
	cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_CACHE": "semantic",
		"HEARTH_CACHE_EMBEDDING_MODEL": "ollama:nomic-embed-text", "HEARTH_CACHE_SIMILARITY": "0.9"}))
	if err != nil || cfg.Validate() != nil {
		t.Fatalf("good settings: %v %v", err, cfg.Validate())
	}
	ac := cfg.App(make([]byte, 32), nil, "test")
	want := engine.SemanticCacheConfig{Model: engine.ModelRef{Provider: "ollama", Model: "nomic-embed-text"}, Similarity: 0.9}
	if ac.Cache == nil || ac.Cache.Semantic == nil || *ac.Cache.Semantic != want {
		t.Fatalf("app config %+v", ac.Cache)
	}
	cfg, _, _ = Load("serve", []string{"-cache", "semantic", "-cache-embedding-model", "hearth:hash-embed"}, envMap(nil))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if ac = cfg.App(make([]byte, 32), nil, "test"); ac.Cache.Semantic == nil || ac.Cache.Semantic.Similarity != engine.DefaultCacheSimilarity {
		t.Fatalf("default similarity: %+v", ac.Cache.Semantic)
	}
	cfg, _, _ = Load("serve", nil, envMap(map[string]string{"HEARTH_CACHE": "exact", "HEARTH_CACHE_EMBEDDING_MODEL": "ollama:nomic-embed-text"}))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if ac = cfg.App(make([]byte, 32), nil, "test"); ac.Cache == nil || ac.Cache.Semantic != nil {
		t.Fatalf("exact mode has no semantic side: %+v", ac.Cache)
	}
	// The config file of docs/response-cache.md.
	file := filepath.Join(t.TempDir(), "hearth.json")
	os.WriteFile(file, []byte(`{"cache": "semantic", "cache_embedding_model": "ollama:nomic-embed-text", "cache_similarity": "0.95", "cache_ttl": "1h"}`), 0o600)
	cfg, _, err = Load("serve", nil, envMap(map[string]string{"HEARTH_CONFIG": file}))
	if err != nil || cfg.Validate() != nil {
		t.Fatalf("config file: %v %v", err, cfg.Validate())
	}
	if ac = cfg.App(make([]byte, 32), nil, "test"); ac.Cache == nil || ac.Cache.Semantic == nil || ac.Cache.Semantic.Model.String() != "ollama:nomic-embed-text" {
		t.Fatalf("config file: %+v", ac.Cache)
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HEARTH_CACHE": "fuzzy"}, `HEARTH_CACHE: must be one of off, exact, semantic, got "fuzzy"`},
		{map[string]string{"HEARTH_CACHE": "semantic"}, "HEARTH_CACHE_EMBEDDING_MODEL: HEARTH_CACHE=semantic needs an embedding model"},
		{map[string]string{"HEARTH_CACHE": "semantic", "HEARTH_CACHE_EMBEDDING_MODEL": "nomic"}, `HEARTH_CACHE_EMBEDDING_MODEL: must be provider:model such as ollama:nomic-embed-text, got "nomic"`},
		{map[string]string{"HEARTH_CACHE": "semantic", "HEARTH_CACHE_EMBEDDING_MODEL": "nosuch:embed"}, `HEARTH_CACHE_EMBEDDING_MODEL "nosuch:embed": unknown provider "nosuch"`},
		{map[string]string{"HEARTH_CACHE_SIMILARITY": "0"}, `HEARTH_CACHE_SIMILARITY: must be a number above 0 and at most 1, got "0"`},
		{map[string]string{"HEARTH_CACHE_SIMILARITY": "1.5"}, `HEARTH_CACHE_SIMILARITY: must be a number above 0 and at most 1, got "1.5"`},
		{map[string]string{"HEARTH_CACHE_SIMILARITY": "high"}, `HEARTH_CACHE_SIMILARITY: must be a number above 0 and at most 1, got "high"`},
		{map[string]string{"HEARTH_CACHE_SIMILARITY": "NaN"}, `HEARTH_CACHE_SIMILARITY: must be a number above 0 and at most 1, got "NaN"`},
	} {
		if err := loadErr(c.env); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.env, err, c.want)
		}
	}
}
