package main

import (
	"fmt"
	"net/url"
	"strings"
)

// clusterVars are the settings of cluster mode: several nodes on one
// PostgreSQL database (README "Running several nodes").
func (c *Config) clusterVars() []configVar {
	return []configVar{
		{env: "HEARTH_DATABASE_URL", flag: "database-url", usage: "postgres:// URL of the PostgreSQL database shared by several nodes (cluster mode; unset: embedded store in -data)", str: &c.DatabaseURL},
	}
}

// validateCluster checks HEARTH_DATABASE_URL: empty, or a postgres:// URL.
// Its password is never echoed back.
func (c *Config) validateCluster() []error {
	c.DatabaseURL = strings.TrimSpace(c.DatabaseURL)
	if c.DatabaseURL == "" {
		return nil
	}
	u, err := url.Parse(c.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return []error{fmt.Errorf("HEARTH_DATABASE_URL: must be a URL such as postgres://user:password@host:5432/hearth")}
	}
	return nil
}

// clustered reports whether the configuration selects cluster mode.
func (c *Config) clustered() bool { return c.DatabaseURL != "" }
