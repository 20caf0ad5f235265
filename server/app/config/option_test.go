package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEveryRuleRefusesABadValueAndAcceptsTheDefault: each row with a rule
// accepts its default and refuses the rule's bad value, naming the
// setting, the rule and the value in the one shape, and only that setting.
func TestEveryRuleRefusesABadValueAndAcceptsTheDefault(t *testing.T) {
	def := Default()
	if err := def.checkOptions(); err != nil {
		t.Fatalf("the defaults break their own rules: %v", err)
	}
	n := 0
	for i, row := range def.vars() {
		if row.rule == nil {
			continue
		}
		n++
		c := Default()
		v := c.vars()[i]
		err := c.setVar(v, v.rule.bad, v.env)
		if err == nil {
			err = c.checkOptions()
		}
		want := v.env + ": must be " + v.rule.text + ", got " // the value is masked for secrets
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%q: err = %v, want %q", v.env, v.rule.bad, err, want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%q refused other settings too: %v", v.env, v.rule.bad, err)
		}
	}
	if n < 50 {
		t.Errorf("only %d rows have a rule", n)
	}
}

// TestTypedOptionsDeclareARule: every number, duration and enum setting
// declares its rule (range or values), so a new one cannot skip it, and an
// enum's default is one of its values.
func TestTypedOptionsDeclareARule(t *testing.T) {
	c := Default()
	for _, v := range c.vars() {
		switch {
		case v.num != nil, v.flt != nil, v.dur != nil:
			if v.rule == nil {
				t.Errorf("%s (%s) declares no rule", v.env, v.kind())
			}
		case v.bl != nil:
			if v.rule != nil {
				t.Errorf("%s: a boolean takes true or false, no rule", v.env)
			}
		}
		if v.kind() == "enum" && !strings.Contains(v.usage+v.doc, v.rule.values[len(v.rule.values)-1]) {
			t.Errorf("%s: the docs do not name the value %q", v.env, v.rule.values[len(v.rule.values)-1])
		}
	}
}

// TestRefusalNamesTheSettingAsGiven: a bad value is refused naming the
// environment variable, the flag or the config file key it came by,
// whether it does not parse (at load) or breaks the range (Validate).
func TestRefusalNamesTheSettingAsGiven(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hearth.json")
	for _, tc := range []struct {
		args []string
		env  map[string]string
		file string
		want string
	}{
		{nil, map[string]string{"HEARTH_CACHE_TTL": "5x"}, "", `HEARTH_CACHE_TTL: must be a duration between 1s and 365d, got "5x"`},
		{[]string{"-cache-ttl", "5x"}, nil, "", `-cache-ttl: must be a duration between 1s and 365d, got "5x"`},
		{nil, nil, `{"cache_ttl": "5x"}`, `cache_ttl: must be a duration between 1s and 365d, got "5x"`},
		{nil, nil, `{"cache_ttl": 30}`, `cache_ttl: must be a duration between 1s and 365d, got "30"`},
		{nil, nil, `{"log_level": 3}`, `log_level: must be one of debug, info, warn, error, got "3"`},
		{nil, map[string]string{"HEARTH_CACHE_TTL": "400d"}, "", `HEARTH_CACHE_TTL: must be a duration between 1s and 365d, got "400d"`},
		{[]string{"-queue-timeout", "2h"}, nil, "", `-queue-timeout: must be a duration between 10ms and 1h, got "2h"`},
		{nil, nil, `{"cache_similarity": 2}`, `cache_similarity: must be a number above 0 and at most 1, got "2"`},
		{nil, nil, `{"metrics": "sometimes"}`, `metrics: must be true or false, got "sometimes"`},
		{nil, map[string]string{"HEARTH_LOG_FORMAT": "xml"}, "", `HEARTH_LOG_FORMAT: must be text or json, got "xml"`},
		{nil, map[string]string{"HEARTH_METRICS_TOKEN": "short-secret"}, "", `HEARTH_METRICS_TOKEN: must be text of at least 16 characters, got "********"`},
	} {
		env := map[string]string{}
		for k, v := range tc.env {
			env[k] = v
		}
		if tc.file != "" {
			os.WriteFile(file, []byte(tc.file), 0o600)
			env["HEARTH_CONFIG"] = file
		}
		cfg, _, err := Load("serve", tc.args, envMap(env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v %s: err = %v, want %q", tc.args, tc.env, tc.file, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "short-secret") {
			t.Errorf("a secret echoed: %v", err)
		}
	}
}

// TestTypedValuesFromEverySource: durations, numbers, booleans and enums
// read the same from the file (strings or JSON literals), the environment
// and the flags; an empty flag means the default; App gets typed values.
func TestTypedValuesFromEverySource(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hearth.json")
	os.WriteFile(file, []byte(`{"cache": "Exact", "cache_ttl": "2d", "cache_allow_temperature": true, "job_lease": "90s", "queue_timeout": "5s",
		"metrics": "off", "run_content_retention": "36h", "guard_classifier_threshold": 0.8}`), 0o600)
	cfg, _, err := Load("serve", []string{"-queue-timeout=", "-body-timeout", "90m"}, envMap(map[string]string{"HEARTH_CONFIG": file, "HEARTH_JOB_LEASE": "2m"}))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	ac := cfg.App(make([]byte, 32), nil, "test")
	if ac.Cache == nil || ac.Cache.TTL != 48*time.Hour || !ac.Cache.AllowTemperature || ac.Memory.LeaseTTL != 2*time.Minute ||
		ac.HTTP.QueueTimeout != 10*time.Second || ac.HTTP.BodyTimeout != 90*time.Minute || !ac.HTTP.MetricsOff ||
		ac.RunContentRetention != 36*time.Hour || ac.GuardClassifierThreshold != 0.8 {
		t.Fatalf("typed values: cache %+v, lease %v, queue %v, body %v, metrics off %v, retention %v, threshold %v",
			ac.Cache, ac.Memory.LeaseTTL, ac.HTTP.QueueTimeout, ac.HTTP.BodyTimeout, ac.HTTP.MetricsOff, ac.RunContentRetention, ac.GuardClassifierThreshold)
	}
	var dump bytes.Buffer
	cfg.Dump(&dump)
	for _, line := range []string{"HEARTH_CACHE=exact ", "HEARTH_CACHE_TTL=2d ", "HEARTH_BODY_TIMEOUT=1h30m ", "HEARTH_RUN_CONTENT_RETENTION=36h ",
		"HEARTH_JOB_LEASE=2m ", "HEARTH_QUEUE_TIMEOUT=10s ", "HEARTH_METRICS=false ", "HEARTH_PARSE_TIMEOUT=1m "} {
		if !strings.Contains(dump.String(), line) {
			t.Errorf("dump lacks %q:\n%s", line, dump.String())
		}
	}
}

// TestDurationJSON: a Duration reads and writes as a readable string.
func TestDurationJSON(t *testing.T) {
	for in, want := range map[string]time.Duration{`"7d"`: 7 * 24 * time.Hour, `"90s"`: 90 * time.Second, `"1h30m"`: 90 * time.Minute} {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil || time.Duration(d) != want {
			t.Errorf("%s: %v %v", in, time.Duration(d), err)
		}
		if b, _ := json.Marshal(d); string(b) != in && !(in == `"90s"` && string(b) == `"1m30s"`) {
			t.Errorf("%s written as %s", in, b)
		}
	}
	var d Duration
	if err := json.Unmarshal([]byte(`30`), &d); err == nil {
		t.Error("a bare number was taken as a duration")
	}
}

// TestStoreOptionsCheckCompression: the commands that open the data dir
// refuse a bad HEARTH_STORE_COMPRESSION by its rule, and only that rule.
func TestStoreOptionsCheckCompression(t *testing.T) {
	dir := t.TempDir()
	if _, err := StoreOptions(dir, envMap(map[string]string{"HEARTH_STORE_COMPRESSION": "zstd"})); err == nil ||
		!strings.Contains(err.Error(), `HEARTH_STORE_COMPRESSION: must be none or snappy, got "zstd"`) {
		t.Errorf("zstd: %v", err)
	}
	o, err := StoreOptions(dir, envMap(map[string]string{"HEARTH_STORE_COMPRESSION": "Snappy", "HEARTH_CACHE_TTL": "9999d"}))
	if err != nil || !o.Snappy || o.Dir != dir {
		t.Errorf("Snappy: %+v %v", o, err)
	}
}
