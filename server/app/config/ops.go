package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// validateOps checks the metrics settings, then the rate limits and quotas (limits.go).
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
