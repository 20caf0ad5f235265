package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
)

// CrawlSettings are the settings of crawls into memories
// (docs/memories-and-retrieval.md#crawl-a-site-into-a-memory). Config embeds
// them, so their JSON keys sit at the top level of the config file.
type CrawlSettings struct {
	// MemoryCrawlTimeout (a Go duration, "" for the default 30m) bounds
	// one crawl into a memory; the pages taken by then stay.
	MemoryCrawlTimeout string `json:"memory_crawl_timeout"`
}

// validateCrawl checks the crawl settings.
func (c *Config) validateCrawl() []error {
	v := strings.TrimSpace(c.MemoryCrawlTimeout)
	if v == "" {
		return nil
	}
	if d, err := parseDuration(v); err != nil || d < time.Minute || d > 24*time.Hour {
		return []error{fmt.Errorf("HEARTH_MEMORY_CRAWL_TIMEOUT %q: use a Go duration from 1m to 24h", c.MemoryCrawlTimeout)}
	}
	return nil
}

// memoryCrawlTimeout is HEARTH_MEMORY_CRAWL_TIMEOUT (call after Validate).
func (c *Config) memoryCrawlTimeout() time.Duration {
	d, err := parseDuration(c.MemoryCrawlTimeout)
	if err != nil {
		return memory.DefaultCrawlTimeout
	}
	return d
}
