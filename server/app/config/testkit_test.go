package config

import (
	"strings"
	"testing"
)

func TestTestkitConfig(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"bad fault":          {map[string]string{"HEARTH_FAULTS": "openai:600"}, "HEARTH_FAULTS"},
		"times server-wide":  {map[string]string{"HEARTH_FAULTS": "429*1"}, "LB-Fault header only"},
		"record and replay":  {map[string]string{"HEARTH_RECORD": dir, "HEARTH_REPLAY": dir}, "set one or the other"},
		"replay missing dir": {map[string]string{"HEARTH_REPLAY": dir + "/nope"}, "existing directory"},
		"replay miss":        {map[string]string{"HEARTH_REPLAY_MISS": "ignore"}, `HEARTH_REPLAY_MISS: must be error or passthrough, got "ignore"`},
	} {
		cfg, _, err := Load("serve", nil, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", name, err, tc.want)
		}
	}
	cfg, _, err := Load("serve", []string{"-faults", "openai:429@0.1, anthropic:timeout@0.05", "-replay", dir},
		envMap(map[string]string{"HEARTH_REPLAY_MISS": "Passthrough"}))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	tk := cfg.App(make([]byte, 32), nil, "test").Testkit
	if !tk.Faults || len(tk.FaultRules) != 2 || tk.FaultRules[1].String() != "anthropic:timeout@0.05" || tk.Replay != dir || tk.ReplayMiss != "passthrough" {
		t.Fatalf("testkit %+v", tk)
	}
	cfg, _, _ = Load("serve", nil, envMap(map[string]string{"HEARTH_FAULTS": "ON"}))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if tk := cfg.App(make([]byte, 32), nil, "test").Testkit; !tk.Faults || tk.FaultRules != nil || tk.ReplayMiss != "error" {
		t.Fatalf("HEARTH_FAULTS=on: %+v", tk)
	}
	cfg, _, _ = Load("serve", nil, envMap(nil))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if tk := cfg.App(make([]byte, 32), nil, "test").Testkit; tk.Faults || tk.Record != "" || tk.Replay != "" {
		t.Fatalf("default: %+v", tk)
	}
}

func TestDeterministicConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"bad value":    {map[string]string{"HEARTH_DETERMINISTIC": "maybe"}, `HEARTH_DETERMINISTIC: must be true or false, got "maybe"`},
		"cluster mode": {map[string]string{"HEARTH_DETERMINISTIC": "on", "HEARTH_DATABASE_URL": "postgres://u@db:5432/hearth"}, "HEARTH_DETERMINISTIC and HEARTH_DATABASE_URL"},
	} {
		cfg, _, err := Load("serve", nil, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", name, err, tc.want)
		}
	}
	cfg, _, err := Load("serve", []string{"-deterministic", "On"}, envMap(nil))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	if tk := cfg.App(make([]byte, 32), nil, "test").Testkit; !tk.Deterministic {
		t.Fatalf("-deterministic on: %+v", tk)
	}
	cfg, _, _ = Load("serve", nil, envMap(nil))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if tk := cfg.App(make([]byte, 32), nil, "test").Testkit; tk.Deterministic {
		t.Fatalf("default: %+v", tk)
	}
}
