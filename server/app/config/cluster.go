package config

import (
	"fmt"
	"net/url"
	"strings"
)

// validateCluster checks HEARTH_DATABASE_URL (empty, or a postgres:// URL),
// HEARTH_DATABASE_MAX_CONNS and HEARTH_JOB_LEASE.
// Its password is never echoed back.
func (c *Config) validateCluster() []error {
	var errs []error
	c.DatabaseURL = strings.TrimSpace(c.DatabaseURL)
	if c.DatabaseURL == "" {
		return errs
	}
	u, err := url.Parse(c.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		errs = append(errs, fmt.Errorf("HEARTH_DATABASE_URL: must be a URL such as postgres://user:password@host:5432/hearth"))
	}
	return errs
}

// clustered reports whether the configuration selects cluster mode.
func (c *Config) Clustered() bool { return c.DatabaseURL != "" }

// DefaultGCHeapFloor is the GC heap floor of a cluster node when
// HEARTH_GC_HEAP_FLOOR is 0.
const DefaultGCHeapFloor = 64 << 20

// HeapFloor is the GC heap floor `hearth serve` keeps, in bytes (0: none).
func (c *Config) HeapFloor() int64 {
	switch {
	case c.GCHeapFloor > 0:
		return c.GCHeapFloor
	case c.GCHeapFloor == 0 && c.Clustered():
		return DefaultGCHeapFloor
	}
	return 0
}
