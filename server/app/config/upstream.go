package config

import (
	"fmt"
	"strings"
)

// validateUpstream checks HEARTH_UPSTREAM_HTTP1; empty means lean.
func (c *Config) validateUpstream() []error {
	switch v := strings.ToLower(strings.TrimSpace(c.UpstreamHTTP1)); v {
	case "", "lean":
		c.UpstreamHTTP1 = "lean"
	case "stdlib":
		c.UpstreamHTTP1 = v
	default:
		return []error{fmt.Errorf("HEARTH_UPSTREAM_HTTP1 %q: use lean or stdlib", c.UpstreamHTTP1)}
	}
	return nil
}
