package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// CacheSettings are the response cache's settings (docs/response-cache.md).
// Config embeds them, so their JSON keys sit at the top level of the config
// file.
type CacheSettings struct {
	// Cache is "off" (the default), "exact" or "semantic".
	Cache string `json:"cache"`
	// CacheTTL is how long an entry answers.
	CacheTTL Duration `json:"cache_ttl"`
	// CacheMaxEntries caps the stored entries; the oldest go first.
	CacheMaxEntries int64 `json:"cache_max_entries"`
	// CacheAllowTemperature caches calls with a
	// temperature above 0 too.
	CacheAllowTemperature bool `json:"cache_allow_temperature"`
	// CacheEmbeddingModel ("provider:model") embeds last user messages in
	// semantic mode.
	CacheEmbeddingModel string `json:"cache_embedding_model"`
	// CacheSimilarity is the least cosine similarity of a semantic hit, in (0, 1].
	CacheSimilarity Float `json:"cache_similarity"`
}

func defaultCacheSettings() CacheSettings {
	return CacheSettings{Cache: "off", CacheTTL: Duration(engine.DefaultCacheTTL), CacheMaxEntries: engine.DefaultCacheMaxEntries,
		CacheSimilarity: engine.DefaultCacheSimilarity}
}

// validateCacheEmbedder checks HEARTH_CACHE_EMBEDDING_MODEL, which
// semantic mode needs.
func (c *Config) validateCacheEmbedder(em string) []error {
	if em == "" {
		return []error{fmt.Errorf("HEARTH_CACHE_EMBEDDING_MODEL: HEARTH_CACHE=semantic needs an embedding model, such as ollama:nomic-embed-text")}
	}
	return c.checkProvider("HEARTH_CACHE_EMBEDDING_MODEL", em)
}

// responseCache returns the engine's cache configuration, nil when the
// cache is off (call after Validate).
func (c *Config) responseCache() *engine.ResponseCacheConfig {
	s := &c.CacheSettings
	if s.Cache != "exact" && s.Cache != "semantic" {
		return nil
	}
	rc := &engine.ResponseCacheConfig{
		TTL: time.Duration(s.CacheTTL), MaxEntries: int(s.CacheMaxEntries),
		AllowTemperature: s.CacheAllowTemperature,
	}
	if s.Cache == "semantic" {
		ref, _ := engine.ParseModelID("model", strings.TrimSpace(s.CacheEmbeddingModel))
		rc.Semantic = &engine.SemanticCacheConfig{Model: ref, Similarity: float64(s.CacheSimilarity)}
	}
	return rc
}
