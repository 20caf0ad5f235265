package main

import (
	"fmt"
	"strings"
)

// upstreamVars are the settings of the upstream HTTP client
// (docs/providers.md#upstream-http-client).
func (c *Config) upstreamVars() []configVar {
	return []configVar{
		{env: "HEARTH_UPSTREAM_HTTP1", flag: "upstream-http1", usage: "client of plain-http provider calls: lean (the call's own goroutine on pooled keep-alive connections; default) or stdlib (Go's net/http transport)", str: &c.UpstreamHTTP1},
	}
}

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
