package main

import (
	"strings"
	"testing"
)

func TestOpsConfigValidation(t *testing.T) {
	bad := map[string]struct {
		env  map[string]string
		want string
	}{
		"metrics mode":        {map[string]string{"HEARTH_METRICS": "public"}, "HEARTH_METRICS"},
		"short metrics token": {map[string]string{"HEARTH_METRICS_TOKEN": "short"}, "HEARTH_METRICS_TOKEN"},
		"metrics addr":        {map[string]string{"HEARTH_METRICS_ADDR": "9090"}, "HEARTH_METRICS_ADDR"},
		"metrics port":        {map[string]string{"HEARTH_METRICS_ADDR": ":70000"}, "HEARTH_METRICS_ADDR"},
		"metrics on main":     {map[string]string{"HEARTH_ADDR": ":8080", "HEARTH_METRICS_ADDR": ":8080"}, "must differ"},
	}
	for name, tc := range bad {
		cfg, _, err := loadConfig("serve", nil, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", name, err, tc.want)
		}
	}
	good := []map[string]string{
		{},
		{"HEARTH_METRICS": "OFF", "HEARTH_METRICS_ADDR": "127.0.0.1:9090"},
		{"HEARTH_METRICS_TOKEN": "0123456789abcdef"},
	}
	for _, env := range good {
		cfg, _, err := loadConfig("serve", nil, envMap(env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Errorf("%v: %v", env, err)
		}
	}
}
