package config

import (
	"strings"
	"testing"
)

func TestEgressConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"unknown mode":      {map[string]string{"HEARTH_EGRESS": "closed"}, "HEARTH_EGRESS \"closed\""},
		"URL in allow":      {map[string]string{"HEARTH_EGRESS": "allowlist", "HEARTH_EGRESS_ALLOW": "https://api.example.com"}, "HEARTH_EGRESS_ALLOW"},
		"port out of range": {map[string]string{"HEARTH_EGRESS_ALLOW": "ollama:70000"}, "HEARTH_EGRESS_ALLOW"},
	} {
		cfg, _, err := Load("serve", nil, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", name, err, tc.want)
		}
	}
	cfg, _, err := Load("serve", []string{"-egress", "AllowList"}, envMap(map[string]string{
		"HEARTH_EGRESS_ALLOW": "127.0.0.1:11434, 10.0.0.0/8,api.example.com", "HEARTH_APPLY_DIR": "/etc/hearth"}))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	ac := cfg.App(make([]byte, 32), nil, "test")
	if ac.EgressMode != "allowlist" || strings.Join(ac.EgressAllow, " ") != "127.0.0.1:11434 10.0.0.0/8 api.example.com" || cfg.ApplyDir != "/etc/hearth" {
		t.Fatalf("egress settings: %q %q %q", ac.EgressMode, ac.EgressAllow, cfg.ApplyDir)
	}
}
