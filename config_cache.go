package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// CacheSettings are the response cache's settings (docs/response-cache.md).
// Config embeds them, so their JSON keys sit at the top level of the config
// file.
type CacheSettings struct {
	// Cache is "off" (the default), "exact" or "semantic".
	Cache string `json:"cache"`
	// CacheTTL (a Go duration) is how long an entry answers.
	CacheTTL string `json:"cache_ttl"`
	// CacheMaxEntries caps the stored entries; the oldest go first.
	CacheMaxEntries int64 `json:"cache_max_entries"`
	// CacheAllowTemperature ("true"/"false") caches calls with a
	// temperature above 0 too.
	CacheAllowTemperature string `json:"cache_allow_temperature"`
	// CacheEmbeddingModel ("provider:model") embeds last user messages in
	// semantic mode.
	CacheEmbeddingModel string `json:"cache_embedding_model"`
	// CacheSimilarity is the least cosine similarity of a semantic hit, in (0, 1].
	CacheSimilarity string `json:"cache_similarity"`
}

func defaultCacheSettings() CacheSettings {
	return CacheSettings{Cache: "off", CacheTTL: engine.DefaultCacheTTL.String(), CacheMaxEntries: engine.DefaultCacheMaxEntries, CacheAllowTemperature: "false",
		CacheSimilarity: strconv.FormatFloat(engine.DefaultCacheSimilarity, 'g', -1, 64)}
}

// cacheVars are the response cache's settings.
func (c *Config) cacheVars() []configVar {
	s := &c.CacheSettings
	return []configVar{
		{env: "HEARTH_CACHE", flag: "cache", usage: "response cache: off, exact, or semantic (exact, then paraphrases of the last user message; requests, keys and pipes opt in with LB-Cache: on)", str: &s.Cache},
		{env: "HEARTH_CACHE_TTL", flag: "cache-ttl", usage: "how long a cached answer is served (a Go duration, 1s to 8760h)", str: &s.CacheTTL},
		{env: "HEARTH_CACHE_MAX_ENTRIES", flag: "cache-max-entries", usage: "most answers the response cache keeps; the oldest are evicted first (1 to 10000000)", num: &s.CacheMaxEntries},
		{env: "HEARTH_CACHE_ALLOW_TEMPERATURE", flag: "cache-allow-temperature", usage: "also cache calls with a temperature above 0 (true or false)", str: &s.CacheAllowTemperature},
		{env: "HEARTH_CACHE_EMBEDDING_MODEL", flag: "cache-embedding-model", usage: "embedder of the last user message in semantic mode (provider:model, such as ollama:nomic-embed-text)", str: &s.CacheEmbeddingModel},
		{env: "HEARTH_CACHE_SIMILARITY", flag: "cache-similarity", usage: "least cosine similarity of a semantic hit (above 0, at most 1)", str: &s.CacheSimilarity},
	}
}

// validateCache checks the response cache's settings.
func (c *Config) validateCache() []error {
	s := &c.CacheSettings
	var errs []error
	mode := strings.ToLower(strings.TrimSpace(s.Cache))
	switch mode {
	case "off", "exact", "semantic":
	default:
		errs = append(errs, fmt.Errorf("HEARTH_CACHE %q: use off, exact or semantic", s.Cache))
	}
	if sim, err := strconv.ParseFloat(strings.TrimSpace(s.CacheSimilarity), 64); err != nil || !(sim > 0 && sim <= 1) {
		errs = append(errs, fmt.Errorf("HEARTH_CACHE_SIMILARITY %q: must be a number above 0 and at most 1, such as 0.95", s.CacheSimilarity))
	}
	if em := strings.TrimSpace(s.CacheEmbeddingModel); em != "" || mode == "semantic" {
		errs = append(errs, c.validateCacheEmbedder(em)...)
	}
	if d, err := time.ParseDuration(strings.TrimSpace(s.CacheTTL)); err != nil || d < time.Second || d > 8760*time.Hour {
		errs = append(errs, fmt.Errorf("HEARTH_CACHE_TTL %q: must be a Go duration from 1s to 8760h, such as 1h or 30m", s.CacheTTL))
	}
	if s.CacheMaxEntries < 1 || s.CacheMaxEntries > 10_000_000 {
		errs = append(errs, fmt.Errorf("HEARTH_CACHE_MAX_ENTRIES %d: must be from 1 to 10000000", s.CacheMaxEntries))
	}
	switch strings.ToLower(strings.TrimSpace(s.CacheAllowTemperature)) {
	case "true", "false":
	default:
		errs = append(errs, fmt.Errorf("HEARTH_CACHE_ALLOW_TEMPERATURE %q: use true or false", s.CacheAllowTemperature))
	}
	return errs
}

// validateCacheEmbedder checks HEARTH_CACHE_EMBEDDING_MODEL, which
// semantic mode needs.
func (c *Config) validateCacheEmbedder(em string) []error {
	if em == "" {
		return []error{fmt.Errorf("HEARTH_CACHE_EMBEDDING_MODEL: HEARTH_CACHE=semantic needs an embedding model, such as ollama:nomic-embed-text")}
	}
	ref, err := engine.ParseModelID("model", em)
	if err != nil {
		return []error{fmt.Errorf("HEARTH_CACHE_EMBEDDING_MODEL %q: want provider:model, such as ollama:nomic-embed-text", em)}
	}
	if _, extra := c.Providers[ref.Provider]; !extra && ref.Provider != providers.HearthProvider && !slices.Contains(providers.KnownProviders(), ref.Provider) && !c.deploymentProvider(ref.Provider) {
		return []error{fmt.Errorf("HEARTH_CACHE_EMBEDDING_MODEL %q: unknown provider %q (built in: %s, hearth; others need HEARTH_PROVIDERS)", em, ref.Provider, strings.Join(providers.KnownProviders(), ", "))}
	}
	return nil
}

// responseCache returns the engine's cache configuration, nil when the
// cache is off (call after Validate).
func (c *Config) responseCache() *engine.ResponseCacheConfig {
	s := &c.CacheSettings
	mode := strings.ToLower(strings.TrimSpace(s.Cache))
	if mode != "exact" && mode != "semantic" {
		return nil
	}
	ttl, _ := time.ParseDuration(strings.TrimSpace(s.CacheTTL))
	rc := &engine.ResponseCacheConfig{
		TTL: ttl, MaxEntries: int(s.CacheMaxEntries),
		AllowTemperature: strings.ToLower(strings.TrimSpace(s.CacheAllowTemperature)) == "true",
	}
	if mode == "semantic" {
		ref, _ := engine.ParseModelID("model", strings.TrimSpace(s.CacheEmbeddingModel))
		sim, _ := strconv.ParseFloat(strings.TrimSpace(s.CacheSimilarity), 64)
		rc.Semantic = &engine.SemanticCacheConfig{Model: ref, Similarity: sim}
	}
	return rc
}
