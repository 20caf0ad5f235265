package config

import (
	"strings"
	"testing"
	"time"
)

// TestDurationsTakeOneSpelling: every duration setting reads Go durations
// and whole days the same way, so a day suffix works everywhere it fits.
func TestDurationsTakeOneSpelling(t *testing.T) {
	for in, want := range map[string]time.Duration{"90s": 90 * time.Second, " 2m ": 2 * time.Minute, "1h30m": 90 * time.Minute, "1d": 24 * time.Hour, "7d": 7 * 24 * time.Hour} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "7", "1.5d", "-1d", "d", "soon"} {
		if _, err := parseDuration(in); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
	err := loadErr(map[string]string{"HEARTH_MEMORY_CRAWL_TIMEOUT": "1d", "HEARTH_CACHE_TTL": "2d", "HEARTH_JOB_LEASE": "1d"})
	if err == nil || !strings.Contains(err.Error(), "HEARTH_JOB_LEASE") || strings.Contains(err.Error(), "HEARTH_MEMORY_CRAWL_TIMEOUT") || strings.Contains(err.Error(), "HEARTH_CACHE_TTL") {
		t.Fatalf("1d crawl timeout and 2d cache TTL are in range, a 1d job lease is not (at most 10m): %v", err)
	}
	cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_MEMORY_CRAWL_TIMEOUT": "1d", "HEARTH_CACHE_TTL": "2d"}))
	if err != nil || cfg.Validate() != nil {
		t.Fatal(err)
	}
	if got := cfg.App(nil, nil, "").Memory.CrawlTimeout; got != 24*time.Hour {
		t.Errorf("crawl timeout %v, want 24h", got)
	}
}
