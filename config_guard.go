package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hearth-dev/hearth/engine/guard"
)

// GuardSettings are the server-wide guardrails (docs/guardrails.md).
// Config embeds them, so their JSON keys sit at the top level of the
// config file.
type GuardSettings struct {
	// Guard is the server-wide policy as JSON; GuardFile names a file
	// holding it instead.
	Guard     string `json:"guard"`
	GuardFile string `json:"guard_file"`
	// GuardClassifierModel ("provider:model") scores injection checks;
	// a text at GuardClassifierThreshold (0 to 1) or above is one.
	GuardClassifierModel     string `json:"guard_classifier_model"`
	GuardClassifierThreshold string `json:"guard_classifier_threshold"`
	// guard is the policy, loaded and checked by Validate.
	guard *guard.Policy
}

func (c *Config) guardVars() []configVar {
	return []configVar{
		{env: "HEARTH_GUARD", flag: "guard", usage: "server-wide guardrail policy as JSON (docs/guardrails.md)", str: &c.Guard},
		{env: "HEARTH_GUARD_FILE", flag: "guard-file", usage: "JSON file of the server-wide guardrail policy (instead of HEARTH_GUARD)", str: &c.GuardFile},
		{env: "HEARTH_GUARD_CLASSIFIER_MODEL", flag: "guard-classifier-model", usage: "provider:model of a local classifier that also scores prompt-injection checks", str: &c.GuardClassifierModel},
		{env: "HEARTH_GUARD_CLASSIFIER_THRESHOLD", flag: "guard-classifier-threshold", usage: "classifier score (0 to 1) at which a text counts as an injection (default 0.5)", str: &c.GuardClassifierThreshold},
	}
}

// validateGuard loads and checks the policy; errors name the setting and
// the field.
func (c *Config) validateGuard() []error {
	c.guard = nil
	src, name := strings.TrimSpace(c.Guard), "HEARTH_GUARD"
	if c.GuardFile != "" {
		if src != "" {
			return []error{fmt.Errorf("HEARTH_GUARD and HEARTH_GUARD_FILE: set one of them, not both")}
		}
		b, err := os.ReadFile(c.GuardFile)
		if err != nil {
			return []error{fmt.Errorf("HEARTH_GUARD_FILE: %v", err)}
		}
		src, name = string(b), "HEARTH_GUARD_FILE "+c.GuardFile
	}
	var errs []error
	if src != "" {
		var p guard.Policy
		dec := json.NewDecoder(bytes.NewReader([]byte(src)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			errs = append(errs, fmt.Errorf("%s: not a guardrail policy: %v", name, err))
		} else if err := p.Validate("guard"); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
		} else {
			c.guard = &p
		}
	}
	if t := c.GuardClassifierThreshold; t != "" {
		if v, err := strconv.ParseFloat(t, 64); err != nil || v <= 0 || v > 1 {
			errs = append(errs, fmt.Errorf("HEARTH_GUARD_CLASSIFIER_THRESHOLD %q: must be a number above 0 and at most 1", t))
		}
	}
	if m := c.GuardClassifierModel; m != "" && !strings.Contains(m, ":") {
		errs = append(errs, fmt.Errorf("HEARTH_GUARD_CLASSIFIER_MODEL %q: must be provider:model (ollama:llama-guard3:1b)", m))
	}
	return errs
}

// guardThreshold returns HEARTH_GUARD_CLASSIFIER_THRESHOLD (0: default).
func (c *Config) guardThreshold() float64 {
	v, _ := strconv.ParseFloat(c.GuardClassifierThreshold, 64)
	return v
}
