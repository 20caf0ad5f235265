package main

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

func (c *Config) crawlVars() []configVar {
	return []configVar{
		{env: "HEARTH_MEMORY_CRAWL_TIMEOUT", flag: "memory-crawl-timeout", usage: "longest one crawl of a site into a memory may run (a Go duration, default 30m)", str: &c.MemoryCrawlTimeout},
	}
}

// validateCrawl checks the crawl settings.
func (c *Config) validateCrawl() []error {
	v := strings.TrimSpace(c.MemoryCrawlTimeout)
	if v == "" {
		return nil
	}
	if d, err := time.ParseDuration(v); err != nil || d < time.Minute || d > 24*time.Hour {
		return []error{fmt.Errorf("HEARTH_MEMORY_CRAWL_TIMEOUT %q: use a Go duration from 1m to 24h", c.MemoryCrawlTimeout)}
	}
	return nil
}

// memoryCrawlTimeout is HEARTH_MEMORY_CRAWL_TIMEOUT (call after Validate).
func (c *Config) memoryCrawlTimeout() time.Duration {
	d, err := time.ParseDuration(strings.TrimSpace(c.MemoryCrawlTimeout))
	if err != nil {
		return memory.DefaultCrawlTimeout
	}
	return d
}
