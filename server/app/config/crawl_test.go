package config

import (
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
)

func TestCrawlConfig(t *testing.T) {
	for _, v := range []string{"10s", "25h", "soon"} {
		cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_MEMORY_CRAWL_TIMEOUT": v}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "HEARTH_MEMORY_CRAWL_TIMEOUT") {
			t.Errorf("%s: err = %v, want a refusal naming HEARTH_MEMORY_CRAWL_TIMEOUT", v, err)
		}
	}
	for args, want := range map[string]time.Duration{"": memory.DefaultCrawlTimeout, "-memory-crawl-timeout=2h": 2 * time.Hour} {
		cfg, _, err := Load("serve", strings.Fields(args), envMap(nil))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.App(make([]byte, 32), nil, "test").Memory.CrawlTimeout; got != want {
			t.Errorf("%q: crawl timeout %s, want %s", args, got, want)
		}
	}
}
