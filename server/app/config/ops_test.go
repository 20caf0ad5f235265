package config

import (
	"testing"
)

func TestOpsConfigValidation(t *testing.T) {
	bad := map[string]envCase{
		"metrics mode":        {map[string]string{"HEARTH_METRICS": "public"}, "HEARTH_METRICS"},
		"short metrics token": {map[string]string{"HEARTH_METRICS_TOKEN": "short"}, "HEARTH_METRICS_TOKEN"},
		"metrics addr":        {map[string]string{"HEARTH_METRICS_ADDR": "9090"}, "HEARTH_METRICS_ADDR"},
		"metrics port":        {map[string]string{"HEARTH_METRICS_ADDR": ":70000"}, "HEARTH_METRICS_ADDR"},
		"metrics on main":     {map[string]string{"HEARTH_ADDR": ":8080", "HEARTH_METRICS_ADDR": ":8080"}, "must differ"},
		"negative rate":       {map[string]string{"HEARTH_RATE_LIMIT_PER_KEY": "-1"}, "HEARTH_RATE_LIMIT_PER_KEY"},
		"huge burst":          {map[string]string{"HEARTH_RATE_LIMIT_BURST": "100000000"}, "HEARTH_RATE_LIMIT_BURST"},
		"negative quota":      {map[string]string{"HEARTH_QUOTA_MAX_BYTES": "-5"}, "HEARTH_QUOTA_MAX_BYTES"},
		"word quota":          {map[string]string{"HEARTH_QUOTA_MAX_DOCUMENTS": "many"}, "HEARTH_QUOTA_MAX_DOCUMENTS"},
	}
	expectRefused(t, bad)
	good := []map[string]string{
		{},
		{"HEARTH_METRICS": "OFF", "HEARTH_METRICS_ADDR": "127.0.0.1:9090"},
		{"HEARTH_METRICS_TOKEN": "0123456789abcdef"},
		{"HEARTH_RATE_LIMIT_PER_KEY": "600", "HEARTH_RATE_LIMIT_PER_PIPE": "60", "HEARTH_RATE_LIMIT_BURST": "20",
			"HEARTH_QUOTA_MAX_DOCUMENTS": "1000", "HEARTH_QUOTA_MAX_BYTES": "1073741824"},
	}
	for _, env := range good {
		cfg, _, err := Load("serve", nil, envMap(env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Errorf("%v: %v", env, err)
		}
	}
}
