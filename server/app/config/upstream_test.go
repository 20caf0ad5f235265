package config

import (
	"strings"
	"testing"
)

// TestUpstreamHTTP1Config: HEARTH_UPSTREAM_HTTP1 defaults to lean, takes
// stdlib from the environment or the flag, reaches the providers'
// configuration, and a wrong value is refused by name.
func TestUpstreamHTTP1Config(t *testing.T) {
	for _, v := range []string{"fast", "http2"} {
		cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_UPSTREAM_HTTP1": v}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "HEARTH_UPSTREAM_HTTP1") {
			t.Errorf("%s: err = %v, want a refusal naming HEARTH_UPSTREAM_HTTP1", v, err)
		}
	}
	for _, tc := range []struct {
		args string
		env  map[string]string
		want string
	}{
		{"", nil, "lean"},
		{"", map[string]string{"HEARTH_UPSTREAM_HTTP1": "STDLIB"}, "stdlib"},
		{"-upstream-http1=stdlib", nil, "stdlib"},
		{"-upstream-http1=lean", map[string]string{"HEARTH_UPSTREAM_HTTP1": "stdlib"}, "lean"},
	} {
		cfg, _, err := Load("serve", strings.Fields(tc.args), envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.App(make([]byte, 32), nil, "test").Providers.HTTP1; got != tc.want {
			t.Errorf("%q %v: HTTP1 %q, want %q", tc.args, tc.env, got, tc.want)
		}
	}
}
