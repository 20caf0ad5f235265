package main

import (
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/providers/netguard"
)

// EgressSettings are the air-gapped and declarative settings
// (docs/air-gapped.md and docs/pipes-as-code.md). Config embeds them, so their JSON
// keys sit at the top level of the config file.
type EgressSettings struct {
	// Egress is "open" (default) or "allowlist": every outbound
	// connection must then match EgressAllow.
	Egress string `json:"egress"`
	// EgressAllow lists host names, host:port pairs and CIDR prefixes,
	// comma-separated.
	EgressAllow string `json:"egress_allow"`
	// ApplyDir is a directory of declarations applied at start.
	ApplyDir string `json:"apply_dir"`
}

func (c *Config) egressVars() []configVar {
	e := &c.EgressSettings
	return []configVar{
		{env: "HEARTH_EGRESS", flag: "egress", usage: "open, or allowlist: every outbound connection must match HEARTH_EGRESS_ALLOW", str: &e.Egress},
		{env: "HEARTH_EGRESS_ALLOW", flag: "egress-allow", usage: "comma-separated host names, host:port pairs and CIDRs Hearth may connect to in allowlist mode", str: &e.EgressAllow},
		{env: "HEARTH_APPLY_DIR", flag: "apply-dir", usage: "directory of YAML/JSON declarations applied at start (see hearth apply)", str: &e.ApplyDir},
	}
}

// validateEgress checks the egress settings.
func (c *Config) validateEgress() []error {
	var errs []error
	e := &c.EgressSettings
	e.Egress = strings.ToLower(strings.TrimSpace(e.Egress))
	if e.Egress == "" {
		e.Egress = netguard.ModeOpen
	}
	if e.Egress != netguard.ModeOpen && e.Egress != netguard.ModeAllowlist {
		errs = append(errs, fmt.Errorf("HEARTH_EGRESS %q: use open or allowlist", e.Egress))
	}
	if _, err := netguard.ParseAllow(e.EgressAllow); err != nil {
		errs = append(errs, fmt.Errorf("HEARTH_EGRESS_ALLOW: %w", err))
	}
	return errs
}

// egressAllow is HEARTH_EGRESS_ALLOW as a list (validated).
func (c *Config) egressAllow() []string {
	l, _ := netguard.ParseAllow(c.EgressAllow)
	return l
}
