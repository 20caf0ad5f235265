package config

import (
	"time"
)

// runContentRetention returns HEARTH_RUN_CONTENT_RETENTION (call after
// Validate). It is the default for owners who set none; the expiry of each
// stored content is written with it in the shared store, so every node of
// a cluster sweeps by the same dates.
func (c *Config) runContentRetention() time.Duration {
	return time.Duration(c.RunContentRetention)
}
