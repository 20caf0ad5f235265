package config

import (
	"fmt"
	"strings"
)

// oldBooleans are the spellings booleans had before true and false became
// the one spelling; they still work, with a deprecation warning.
var oldBooleans = map[string]string{"on": "true", "yes": "true", "1": "true", "off": "false", "no": "false", "0": "false"}

// parseBool reads a boolean setting: true or false, or an old spelling
// with a deprecation warning naming env and the spelling given (raw).
func (c *Config) parseBool(env, text, raw string) (bool, error) {
	val := strings.ToLower(text)
	if canon, ok := oldBooleans[val]; ok {
		c.warn(fmt.Sprintf("%s=%s is deprecated: use %s (the old spelling still works)", env, strings.TrimSpace(raw), canon))
		val = canon
	}
	if val != "true" && val != "false" {
		return false, fmt.Errorf("%q is not true or false", raw)
	}
	return val == "true", nil
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
