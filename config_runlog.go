package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// runLogVars are the settings of the run log (docs/pipes-and-threads.md#run-log).
func (c *Config) runLogVars() []configVar {
	return []configVar{
		{env: "HEARTH_RUN_CONTENT_RETENTION", flag: "run-content-retention", usage: "how long the prompt and completion text of runs that opted in is kept, unless the owner sets a period (7d, 36h; 1m to 3650d)", str: &c.RunContentRetention},
	}
}

// validateRunLog checks HEARTH_RUN_CONTENT_RETENTION.
func (c *Config) validateRunLog() []error {
	if _, err := engine.ParseRetention("HEARTH_RUN_CONTENT_RETENTION", strings.TrimSpace(c.RunContentRetention)); err != nil {
		return []error{fmt.Errorf("HEARTH_RUN_CONTENT_RETENTION %q: must be a period from 1m to 3650d, such as 7d or 36h", c.RunContentRetention)}
	}
	return nil
}

// runContentRetention returns HEARTH_RUN_CONTENT_RETENTION (call after
// Validate). It is the default for owners who set none; the expiry of each
// stored content is written with it in the shared store, so every node of
// a cluster sweeps by the same dates.
func (c *Config) runContentRetention() time.Duration {
	d, _ := engine.ParseRetention("", strings.TrimSpace(c.RunContentRetention))
	return d
}
