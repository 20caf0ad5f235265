package config

import (
	"fmt"
	"strings"
)

// oldBooleans are the spellings booleans had before true and false became
// the one spelling; they still work, with a deprecation warning.
var oldBooleans = map[string]string{"on": "true", "yes": "true", "1": "true", "off": "false", "no": "false", "0": "false"}

// normalizeBooleans rewrites every boolean setting of the table to true or
// false (an empty one keeps its default), noting each old spelling in
// Warnings; other values are left for the validators to refuse.
func (c *Config) normalizeBooleans() {
	for _, v := range c.vars() {
		if !v.boolean || v.str == nil {
			continue
		}
		val := strings.ToLower(strings.TrimSpace(*v.str))
		if canon, ok := oldBooleans[val]; ok {
			c.warn(fmt.Sprintf("%s=%s is deprecated: use %s (the old spelling still works)", v.env, *v.str, canon))
			val = canon
		}
		*v.str = val
	}
}

// warn records a deprecation warning once.
func (c *Config) warn(w string) {
	for _, have := range c.warnings {
		if have == w {
			return
		}
	}
	c.warnings = append(c.warnings, w)
}

// Warnings are the deprecations Load and Validate found (old spellings,
// old names), for the start-up log.
func (c *Config) Warnings() []string { return c.warnings }
