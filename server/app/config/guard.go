package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
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
	GuardClassifierThreshold Float  `json:"guard_classifier_threshold"`
	// guard is the policy, loaded and checked by Validate.
	guard *guard.Policy
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
	return errs
}

// guardThreshold returns HEARTH_GUARD_CLASSIFIER_THRESHOLD.
func (c *Config) guardThreshold() float64 {
	return float64(c.GuardClassifierThreshold)
}
