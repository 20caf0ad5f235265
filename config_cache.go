package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// CacheSettings are the response cache's settings (README "Response
// cache"). Config embeds them, so their JSON keys sit at the top level of
// the config file.
type CacheSettings struct {
	// Cache is "off" (the default) or "exact".
	Cache string `json:"cache"`
	// CacheTTL (a Go duration) is how long an entry answers.
	CacheTTL string `json:"cache_ttl"`
	// CacheMaxEntries caps the stored entries; the oldest go first.
	CacheMaxEntries int64 `json:"cache_max_entries"`
	// CacheAllowTemperature ("true"/"false") caches calls with a
	// temperature above 0 too.
	CacheAllowTemperature string `json:"cache_allow_temperature"`
}

func defaultCacheSettings() CacheSettings {
	return CacheSettings{Cache: "off", CacheTTL: engine.DefaultCacheTTL.String(), CacheMaxEntries: engine.DefaultCacheMaxEntries, CacheAllowTemperature: "false"}
}

// cacheVars are the response cache's settings.
func (c *Config) cacheVars() []configVar {
	s := &c.CacheSettings
	return []configVar{
		{env: "HEARTH_CACHE", flag: "cache", usage: "response cache: off, or exact (requests, keys and pipes opt in with LB-Cache: on)", str: &s.Cache},
		{env: "HEARTH_CACHE_TTL", flag: "cache-ttl", usage: "how long a cached answer is served (a Go duration, 1s to 8760h)", str: &s.CacheTTL},
		{env: "HEARTH_CACHE_MAX_ENTRIES", flag: "cache-max-entries", usage: "most answers the response cache keeps; the oldest are evicted first (1 to 10000000)", num: &s.CacheMaxEntries},
		{env: "HEARTH_CACHE_ALLOW_TEMPERATURE", flag: "cache-allow-temperature", usage: "also cache calls with a temperature above 0 (true or false)", str: &s.CacheAllowTemperature},
	}
}

// validateCache checks the response cache's settings.
func (c *Config) validateCache() []error {
	s := &c.CacheSettings
	var errs []error
	switch strings.ToLower(strings.TrimSpace(s.Cache)) {
	case "off", "exact":
	default:
		errs = append(errs, fmt.Errorf("HEARTH_CACHE %q: use off or exact", s.Cache))
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

// responseCache returns the engine's cache configuration, nil when the
// cache is off (call after Validate).
func (c *Config) responseCache() *engine.ResponseCacheConfig {
	s := &c.CacheSettings
	if strings.ToLower(strings.TrimSpace(s.Cache)) != "exact" {
		return nil
	}
	ttl, _ := time.ParseDuration(strings.TrimSpace(s.CacheTTL))
	return &engine.ResponseCacheConfig{
		TTL: ttl, MaxEntries: int(s.CacheMaxEntries),
		AllowTemperature: strings.ToLower(strings.TrimSpace(s.CacheAllowTemperature)) == "true",
	}
}
