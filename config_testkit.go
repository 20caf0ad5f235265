package main

import (
	"fmt"
	"strings"

	"github.com/hearth-dev/hearth/providers/fault"
	"github.com/hearth-dev/hearth/server/app"
)

// TestkitSettings are the settings for test suites (README "Using Hearth
// in your tests"). Config embeds them, so their JSON keys sit at the top
// level of the config file.
type TestkitSettings struct {
	// Faults is "off" (default), "on" (the LB-Fault request header is
	// honoured) or a list of server-wide fault rules such as
	// "openai:429@0.1,anthropic:timeout@0.05" (which also honours the header).
	Faults string `json:"faults"`
}

func (c *Config) testkitVars() []configVar {
	t := &c.TestkitSettings
	return []configVar{
		{env: "HEARTH_FAULTS", flag: "faults", usage: "off; on (honour the LB-Fault request header); or server-wide fault rules such as openai:429@0.1,anthropic:timeout@0.05", str: &t.Faults},
	}
}

// validateTestkit checks the test-suite settings.
func (c *Config) validateTestkit() []error {
	var errs []error
	t := &c.TestkitSettings
	t.Faults = strings.TrimSpace(t.Faults)
	switch strings.ToLower(t.Faults) {
	case "", "off":
		t.Faults = "off"
	case "on":
		t.Faults = "on"
	default:
		rules, err := fault.Parse(t.Faults)
		if err != nil {
			errs = append(errs, fmt.Errorf("HEARTH_FAULTS: %w (or use on / off)", err))
		}
		for _, r := range rules {
			if r.Times > 0 {
				errs = append(errs, fmt.Errorf("HEARTH_FAULTS %q: *times counts the calls of one request, so it belongs in the LB-Fault header only", r))
			}
		}
	}
	return errs
}

// testkit maps the validated settings onto the application's.
func (c *Config) testkit() app.Testkit {
	var tk app.Testkit
	switch c.Faults {
	case "off":
	case "on":
		tk.Faults = true
	default:
		tk.Faults = true
		tk.FaultRules, _ = fault.Parse(c.Faults)
	}
	return tk
}
