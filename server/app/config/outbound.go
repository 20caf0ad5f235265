package config

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"github.com/hearth-dev/hearth/providers/netguard"
)

// OutboundSettings are the one outbound policy (docs/security.md and
// docs/air-gapped.md): which addresses user-supplied URLs may reach, and
// in allowlist mode which destinations any connection may reach. Config
// embeds them, so their JSON keys sit at the top level of the config file.
type OutboundSettings struct {
	// OutboundMode is "open" (default) or "allowlist": every outbound
	// connection must then match OutboundHosts.
	OutboundMode string `json:"outbound"`
	// OutboundHosts lists host names, host:port pairs and CIDR prefixes,
	// comma-separated, that connections may reach in allowlist mode. It
	// does not open private addresses to user-supplied URLs.
	OutboundHosts string `json:"outbound_hosts"`
	// OutboundAllowPrivate lets user-supplied URLs (MCP
	// servers, crawled pages, image URLs) reach private and loopback addresses.
	OutboundAllowPrivate bool `json:"outbound_allow_private"`
	// OutboundAllow is a comma-separated list of CIDR prefixes user-supplied
	// URLs may reach on top of public addresses (for example one intranet subnet).
	OutboundAllow string `json:"outbound_allow"`
	// Outbound is the address policy of user-supplied URLs built by Validate.
	Outbound netguard.Policy `json:"-"`
	// outboundHosts is OutboundHosts as a list, set by Validate.
	outboundHosts []string
}

// renamedSetting is a setting's name before the outbound policies were
// merged: its environment variable, flag and config file key still work,
// with a deprecation warning naming the new ones.
type renamedSetting struct {
	oldEnv, oldFlag, oldKey string
	newEnv, newFlag, newKey string
}

// renamed lists the old names of the outbound settings.
var renamed = []renamedSetting{
	{"HEARTH_EGRESS", "egress", "egress", "HEARTH_OUTBOUND", "outbound", "outbound"},
	{"HEARTH_EGRESS_ALLOW", "egress-allow", "egress_allow", "HEARTH_OUTBOUND_HOSTS", "outbound-hosts", "outbound_hosts"},
}

// renameFileKeys moves the old keys of a config file's top-level object to
// their new names, warning once for each; an old and a new key with
// different values are refused. b is returned unchanged when it has no old key.
func (c *Config) renameFileKeys(path string, b []byte) ([]byte, error) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(b, &keys) != nil {
		return b, nil // the strict decode reports the error
	}
	changed := false
	for _, r := range renamed {
		old, ok := keys[r.oldKey]
		if !ok {
			continue
		}
		if cur, ok := keys[r.newKey]; ok && !sameJSON(cur, old) {
			return nil, fmt.Errorf("config file %s: %s (deprecated) and %s are both set, to different values: keep %s", path, r.oldKey, r.newKey, r.newKey)
		}
		keys[r.newKey] = old
		delete(keys, r.oldKey)
		changed = true
		c.warn(fmt.Sprintf("config file key %s is deprecated: use %s (the old name still works)", r.oldKey, r.newKey))
	}
	if !changed {
		return b, nil
	}
	return json.Marshal(keys)
}

// sameJSON reports whether two JSON values decode to the same string, or
// are byte-identical.
func sameJSON(a, b json.RawMessage) bool {
	var sa, sb string
	if json.Unmarshal(a, &sa) == nil && json.Unmarshal(b, &sb) == nil {
		return sa == sb
	}
	return string(a) == string(b)
}

// renameEnv applies the old environment variables whose new one is unset,
// warning once for each; an old and a new variable with different values
// are refused.
func (c *Config) renameEnv(getenv func(string) string) error {
	for _, r := range renamed {
		old := getenv(r.oldEnv)
		if old == "" {
			continue
		}
		c.warn(fmt.Sprintf("%s is deprecated: use %s (the old name still works)", r.oldEnv, r.newEnv))
		if cur := getenv(r.newEnv); cur != "" {
			if cur != old {
				return fmt.Errorf("%s (deprecated) and %s are both set, to different values: keep %s", r.oldEnv, r.newEnv, r.newEnv)
			}
			continue
		}
		if err := c.setByEnv(r.newEnv, old, r.oldEnv); err != nil {
			return err
		}
		c.sources[r.newEnv] = "env " + r.oldEnv
	}
	return nil
}

// renameFlags applies the old flags given on the command line, warning
// once for each; an old and a new flag with different values are refused.
func (c *Config) renameFlags(given map[string]string) error {
	for _, r := range renamed {
		old, ok := given[r.oldFlag]
		if !ok {
			continue
		}
		c.warn(fmt.Sprintf("-%s is deprecated: use -%s (the old name still works)", r.oldFlag, r.newFlag))
		if cur, ok := given[r.newFlag]; ok {
			if cur != old {
				return fmt.Errorf("-%s (deprecated) and -%s are both given, with different values: keep -%s", r.oldFlag, r.newFlag, r.newFlag)
			}
			continue
		}
		if err := c.setByEnv(r.newEnv, old, "-"+r.oldFlag); err != nil {
			return err
		}
		c.sources[r.newEnv] = "flag -" + r.oldFlag
	}
	return nil
}

// setByEnv sets the table row named env to val; from names where val came from.
func (c *Config) setByEnv(env, val, from string) error {
	for _, v := range c.vars() {
		if v.env == env {
			return c.setVar(v, val, from)
		}
	}
	return fmt.Errorf("%s: no such setting", env)
}

// buildOutbound builds the address policy of user-supplied URLs
// (Outbound) from the checked settings.
func (c *Config) buildOutbound() {
	o := &c.OutboundSettings
	o.Outbound.AllowPrivate = o.OutboundAllowPrivate
	o.Outbound.Allow, _ = parseCIDRs(o.OutboundAllow)
}

// parseCIDRs reads comma-separated CIDR prefixes; ok is false when one is
// not a prefix.
func parseCIDRs(s string) (out []netip.Prefix, ok bool) {
	for _, cidr := range strings.Split(s, ",") {
		if cidr = strings.TrimSpace(cidr); cidr == "" {
			continue
		}
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return out, false
		}
		out = append(out, p)
	}
	return out, true
}

// outboundHosts allows the destinations of allowlist mode.
var outboundHosts = textRule("comma-separated host names, host:port pairs and CIDR prefixes (not URLs)", "https://x", func(s string) bool {
	_, err := netguard.ParseAllow(s)
	return err == nil
})

// cidrList allows comma-separated CIDR prefixes.
var cidrList = textRule("comma-separated CIDR prefixes such as 10.1.0.0/16", "10.0.0.1", func(s string) bool {
	_, ok := parseCIDRs(s)
	return ok
})
