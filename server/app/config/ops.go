package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// validateOps checks the operations settings: metrics, limits, quotas.
func (c *Config) validateOps() []error {
	var errs []error
	switch c.Metrics {
	case "true", "":
		c.Metrics = "true"
	case "false":
	default:
		errs = append(errs, fmt.Errorf("HEARTH_METRICS %q: use true or false (HEARTH_METRICS_ADDR opens a separate listener)", c.Metrics))
	}
	if c.MetricsToken != "" && len(c.MetricsToken) < 16 {
		errs = append(errs, errors.New("HEARTH_METRICS_TOKEN: must be at least 16 characters"))
	}
	if c.MetricsAddr != "" {
		_, port, err := net.SplitHostPort(c.MetricsAddr)
		if err != nil {
			errs = append(errs, fmt.Errorf("HEARTH_METRICS_ADDR %q: want host:port such as 127.0.0.1:9090 (%v)", c.MetricsAddr, err))
		} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
			errs = append(errs, fmt.Errorf("HEARTH_METRICS_ADDR %q: port must be 0-65535", c.MetricsAddr))
		} else if c.MetricsAddr == c.Addr && p != 0 {
			errs = append(errs, fmt.Errorf("HEARTH_METRICS_ADDR %q: must differ from HEARTH_ADDR", c.MetricsAddr))
		}
	}
	return append(errs, c.validateLimits()...)
}

// maxRate bounds the per-minute settings (a million a minute is far past
// what one server answers, and keeps the bucket arithmetic exact).
const maxRate = 1_000_000

func (c *Config) validateLimits() []error {
	var errs []error
	for _, v := range []struct {
		name string
		n    int64
		max  int64
	}{
		{"HEARTH_RATE_LIMIT_PER_KEY", c.RateLimitPerKey, maxRate},
		{"HEARTH_RATE_LIMIT_PER_PIPE", c.RateLimitPerPipe, maxRate},
		{"HEARTH_RATE_LIMIT_BURST", c.RateLimitBurst, maxRate},
		{"HEARTH_QUOTA_MAX_DOCUMENTS", c.QuotaMaxDocuments, 1 << 40},
		{"HEARTH_QUOTA_MAX_BYTES", c.QuotaMaxBytes, 1 << 60},
		{"HEARTH_MAX_CONCURRENT", c.MaxConcurrent, maxRate},
	} {
		if v.n < 0 || v.n > v.max {
			errs = append(errs, fmt.Errorf("%s %d: must be from 0 (off) to %d", v.name, v.n, v.max))
		}
	}
	return errs
}

// serverMaxConcurrent maps HEARTH_MAX_CONCURRENT to server.Config, where
// 0 means the default and a negative value no limit.
func (c *Config) serverMaxConcurrent() int {
	if c.MaxConcurrent == 0 {
		return -1
	}
	return int(c.MaxConcurrent)
}
