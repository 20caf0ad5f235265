package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardConfig: HEARTH_GUARD and HEARTH_GUARD_FILE are parsed and
// checked by Validate and reach the application's configuration; a bad
// policy, both settings at once or a bad classifier setting stop the
// start with an error naming the setting and the field.
func TestGuardConfig(t *testing.T) {
	policy := `{"input":{"pii":["email","credit_card"],"pii_action":"redact","injection":"refuse"},"output":{"pii":["email"]}}`
	cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_GUARD": policy,
		"HEARTH_GUARD_CLASSIFIER_MODEL": "ollama:llama-guard3:1b", "HEARTH_GUARD_CLASSIFIER_THRESHOLD": "0.7"}))
	if err != nil || cfg.Validate() != nil {
		t.Fatalf("good policy: %v %v", err, cfg.Validate())
	}
	ac := cfg.App(make([]byte, 32), nil, "test")
	if ac.Guard == nil || ac.Guard.Input.Injection != "refuse" || ac.GuardClassifierModel != "ollama:llama-guard3:1b" || ac.GuardClassifierThreshold != 0.7 {
		t.Fatalf("app config %+v %q %v", ac.Guard, ac.GuardClassifierModel, ac.GuardClassifierThreshold)
	}
	file := filepath.Join(t.TempDir(), "guard.json")
	os.WriteFile(file, []byte(policy), 0o600)
	cfg, _, _ = Load("serve", []string{"-guard-file", file}, envMap(nil))
	if err := cfg.Validate(); err != nil || cfg.guard == nil || len(cfg.guard.Input.PII) != 2 {
		t.Fatalf("policy file: %v %+v", err, cfg.guard)
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HEARTH_GUARD": `{"input":{"pii":["ssn"]}}`}, `HEARTH_GUARD: guard.input.pii[0]: unknown kind "ssn"`},
		{map[string]string{"HEARTH_GUARD": `{"inputs":{}}`}, `HEARTH_GUARD: not a guardrail policy`},
		{map[string]string{"HEARTH_GUARD": policy, "HEARTH_GUARD_FILE": file}, "set one of them, not both"},
		{map[string]string{"HEARTH_GUARD_FILE": file + ".missing"}, "HEARTH_GUARD_FILE"},
		{map[string]string{"HEARTH_GUARD_CLASSIFIER_THRESHOLD": "2"}, "HEARTH_GUARD_CLASSIFIER_THRESHOLD"},
		{map[string]string{"HEARTH_GUARD_CLASSIFIER_MODEL": "llama-guard"}, "HEARTH_GUARD_CLASSIFIER_MODEL"},
	} {
		cfg, _, _ := Load("serve", nil, envMap(c.env))
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.env, err, c.want)
		}
	}
}
