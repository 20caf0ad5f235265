package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/hearth-dev/hearth/providers/fault"
	"github.com/hearth-dev/hearth/server/app"
)

// TestkitSettings are the settings for test suites
// (docs/hearth-in-your-tests.md). Config embeds them, so their JSON keys sit at
// the top level of the config file.
type TestkitSettings struct {
	// Faults is "off" (default), "on" (the LB-Fault request header is
	// honoured) or a list of server-wide fault rules such as
	// "openai:429@0.1,anthropic:timeout@0.05" (which also honours the header).
	Faults string `json:"faults"`
	// Record writes every upstream exchange to this directory; Replay
	// answers every upstream call from one; ReplayMiss ("error" or
	// "passthrough") is what a call without a recording gets.
	Record     string `json:"record"`
	Replay     string `json:"replay"`
	ReplayMiss string `json:"replay_miss"`
	// Deterministic takes ids and created
	// timestamps from a seeded sequence (docs/hearth-in-your-tests.md#deterministic-mode).
	Deterministic bool `json:"deterministic"`
	// faults is Faults parsed, set by Validate.
	faults faultSetting
}

// faultSetting is HEARTH_FAULTS parsed: whether fault injection is on,
// and the fault rules that apply to every upstream call.
type faultSetting struct {
	on    bool
	rules []fault.Rule
}

// tidyTestkit spells the checked test-suite settings one way.
func (c *Config) tidyTestkit() {
	t := &c.TestkitSettings
	t.Faults = strings.TrimSpace(t.Faults)
	switch strings.ToLower(t.Faults) {
	case "", "off":
		t.Faults = "off"
	case "on":
		t.Faults = "on"
	}
	t.Record, t.Replay = strings.TrimSpace(t.Record), strings.TrimSpace(t.Replay)
}

// faultRules allows off, on, or server-wide fault rules.
var faultRules = textCheck("off, on, or fault rules such as openai:429@0.1", "openai:600", func(s string) error {
	_, err := parseFaults(s)
	return err
})

// parseFaults reads HEARTH_FAULTS: off (or nothing), on, or server-wide
// fault rules, which also turn the LB-Fault header on.
func parseFaults(s string) (faultSetting, error) {
	switch s = strings.TrimSpace(s); strings.ToLower(s) {
	case "", "off":
		return faultSetting{}, nil
	case "on":
		return faultSetting{on: true}, nil
	}
	rules, err := fault.Parse(s)
	if err != nil {
		return faultSetting{}, err
	}
	for _, r := range rules {
		if r.Times > 0 {
			return faultSetting{}, fmt.Errorf("%q: *times counts the calls of one request, so it belongs in the LB-Fault header only", r)
		}
	}
	return faultSetting{on: true, rules: rules}, nil
}

// replayDir allows an existing directory, or nothing.
var replayDir = textRule("an existing directory of recordings (make them with HEARTH_RECORD)", "/nonexistent/recordings", func(s string) bool {
	if s = strings.TrimSpace(s); s == "" {
		return true
	}
	st, err := os.Stat(s)
	return err == nil && st.IsDir()
})

// testkit maps the validated settings onto the application's.
func (c *Config) testkit() app.Testkit {
	return app.Testkit{Record: c.Record, Replay: c.Replay, ReplayMiss: c.ReplayMiss, Deterministic: c.Deterministic,
		Faults: c.faults.on, FaultRules: c.faults.rules}
}
