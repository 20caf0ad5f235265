package config

import (
	"fmt"
	"io"
	"net/url"
	"slices"

	"github.com/hearth-dev/hearth/providers"
)

// masked stands for a secret's value in Dump.
const masked = "********"

// Dump writes the effective settings, one HEARTH_*=value line each with
// where the value came from (default, file, env or flag), secrets masked:
// keys, tokens and the admin key entirely, passwords inside URLs alone.
func (c *Config) Dump(w io.Writer) {
	fmt.Fprintln(w, "# hearth serve: effective settings (config file, then environment, then flags); secrets masked")
	rows := [][2]string{}
	for _, v := range c.vars() {
		val, ok := v.value()
		if !ok {
			if val, ok = c.unfilled[v.env]; !ok {
				continue
			}
		}
		rows = append(rows, [2]string{v.env + "=" + mask(val, v.secret), c.source(v.env)})
	}
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		pc := c.Providers[n]
		baseEnv, keyEnv := providers.EnvNames(n)
		if pc.BaseURL != "" {
			rows = append(rows, [2]string{baseEnv + "=" + mask(pc.BaseURL, false), "env"})
		}
		if pc.APIKey != "" {
			rows = append(rows, [2]string{keyEnv + "=" + masked, "env"})
		}
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  # %s\n", width, r[0], r[1])
	}
	for _, warning := range c.warnings {
		fmt.Fprintf(w, "# deprecated: %s\n", warning)
	}
}

// mask hides a secret's value, and the password of a URL.
func mask(val string, secret bool) string {
	if secret && val != "" {
		return masked
	}
	if u, err := url.Parse(val); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	return val
}

// source says where the setting's value came from.
func (c *Config) source(env string) string {
	if s := c.sources[env]; s != "" {
		return s
	}
	return "default"
}
