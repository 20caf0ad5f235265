package config

import (
	"fmt"
	"strings"
)

// validateServerHTTP1 checks HEARTH_SERVER_HTTP1; empty means lean.
func (c *Config) validateServerHTTP1() []error {
	switch v := strings.ToLower(strings.TrimSpace(c.ServerHTTP1)); v {
	case "", "lean":
		c.ServerHTTP1 = "lean"
	case "stdlib":
		c.ServerHTTP1 = v
	default:
		return []error{fmt.Errorf("HEARTH_SERVER_HTTP1 %q: use lean or stdlib", c.ServerHTTP1)}
	}
	return nil
}
