package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// clusterVars are the settings of cluster mode: several nodes on one
// PostgreSQL database (docs/several-nodes.md).
func (c *Config) clusterVars() []configVar {
	return []configVar{
		{env: "HEARTH_DATABASE_URL", flag: "database-url", usage: "postgres:// URL of the PostgreSQL database shared by several nodes (cluster mode; unset: embedded store in -data)", str: &c.DatabaseURL},
		{env: "HEARTH_DATABASE_MAX_CONNS", flag: "database-max-conns", usage: "most PostgreSQL connections this node opens (cluster mode; 0: 16, or pool_max_conns of the URL)", num: &c.DatabaseMaxConns},
		{env: "HEARTH_JOB_LEASE", flag: "job-lease", usage: "how long an ingestion job stays claimed by a node without its heartbeat before another node takes it over (a Go duration, 1s to 10m)", str: &c.JobLease},
	}
}

// validateCluster checks HEARTH_DATABASE_URL (empty, or a postgres:// URL),
// HEARTH_DATABASE_MAX_CONNS and HEARTH_JOB_LEASE.
// Its password is never echoed back.
func (c *Config) validateCluster() []error {
	var errs []error
	if d, err := time.ParseDuration(strings.TrimSpace(c.JobLease)); err != nil || d < time.Second || d > 10*time.Minute {
		errs = append(errs, fmt.Errorf("HEARTH_JOB_LEASE %q: must be a duration from 1s to 10m, such as 30s", c.JobLease))
	}
	if c.DatabaseMaxConns < 0 || c.DatabaseMaxConns > 10000 {
		errs = append(errs, fmt.Errorf("HEARTH_DATABASE_MAX_CONNS %d: must be from 1 to 10000, or 0 for the default", c.DatabaseMaxConns))
	}
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

// jobLease returns HEARTH_JOB_LEASE (call after Validate). The lease is
// kept in the job's record in the store, so every node on one database
// sees the same deadline; each node's heartbeat renews the leases of the
// jobs it runs every third of its own setting, so give every node the same
// value.
func (c *Config) jobLease() time.Duration {
	d, _ := time.ParseDuration(strings.TrimSpace(c.JobLease))
	return d
}

// clustered reports whether the configuration selects cluster mode.
func (c *Config) clustered() bool { return c.DatabaseURL != "" }
