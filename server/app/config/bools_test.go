package config

import (
	"strings"
	"testing"
)

// TestBooleansAreTrueOrFalse: every boolean setting takes true or false;
// the old spellings (on/off, yes/no, 1/0) still work, each with one
// deprecation warning for the start-up log, and anything else is refused
// naming the setting, the two values and the value given.
func TestBooleansAreTrueOrFalse(t *testing.T) {
	cfg, _, err := Load("serve", []string{"-deterministic", "On"}, envMap(map[string]string{
		"HEARTH_METRICS": "off", "HEARTH_OUTBOUND_ALLOW_PRIVATE": "yes", "HEARTH_CACHE_ALLOW_TEMPERATURE": "true",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil { // a second Validate adds no warning
		t.Fatal(err)
	}
	ac := cfg.App(nil, nil, "")
	if !ac.HTTP.MetricsOff || !ac.Outbound.AllowPrivate || !ac.Testkit.Deterministic || !cfg.CacheAllowTemperature {
		t.Fatalf("old spellings not honoured: metrics off %v, allow private %v, deterministic %v", ac.HTTP.MetricsOff, ac.Outbound.AllowPrivate, ac.Testkit.Deterministic)
	}
	want := []string{
		"HEARTH_OUTBOUND_ALLOW_PRIVATE=yes is deprecated: use true",
		"HEARTH_METRICS=off is deprecated: use false",
		"HEARTH_DETERMINISTIC=On is deprecated: use true",
	}
	if got := cfg.Warnings(); len(got) != len(want) {
		t.Fatalf("warnings %q, want %d", got, len(want))
	}
	for _, w := range want {
		if !strings.Contains(strings.Join(cfg.Warnings(), "\n"), w) {
			t.Errorf("no warning %q in %q", w, cfg.Warnings())
		}
	}
	cfg, _, _ = Load("serve", nil, envMap(map[string]string{"HEARTH_METRICS": "false", "HEARTH_DETERMINISTIC": "false"}))
	if err := cfg.Validate(); err != nil || len(cfg.Warnings()) != 0 || !cfg.App(nil, nil, "").HTTP.MetricsOff {
		t.Fatalf("true/false: %v, warnings %q", err, cfg.Warnings())
	}
	for _, env := range []string{"HEARTH_METRICS", "HEARTH_OUTBOUND_ALLOW_PRIVATE", "HEARTH_CACHE_ALLOW_TEMPERATURE", "HEARTH_DETERMINISTIC"} {
		if err := loadErr(map[string]string{env: "sometimes"}); err == nil || !strings.Contains(err.Error(), env+`: must be true or false, got "sometimes"`) {
			t.Errorf("%s=sometimes: %v", env, err)
		}
	}
}
