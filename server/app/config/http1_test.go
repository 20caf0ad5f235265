package config

import (
	"strings"
	"testing"
)

// TestServerHTTP1Config: HEARTH_SERVER_HTTP1 defaults to lean, takes
// stdlib from the environment or the flag, turns the server's lean path
// off, and a wrong value is refused by name.
func TestServerHTTP1Config(t *testing.T) {
	for _, v := range []string{"0", "fast"} {
		cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_SERVER_HTTP1": v}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "HEARTH_SERVER_HTTP1") {
			t.Errorf("%s: err = %v, want a refusal naming HEARTH_SERVER_HTTP1", v, err)
		}
	}
	for _, tc := range []struct {
		args    string
		env     map[string]string
		leanOff bool
	}{
		{"", nil, false},
		{"", map[string]string{"HEARTH_SERVER_HTTP1": "STDLIB"}, true},
		{"-server-http1=stdlib", nil, true},
		{"-server-http1=lean", map[string]string{"HEARTH_SERVER_HTTP1": "stdlib"}, false},
	} {
		cfg, _, err := Load("serve", strings.Fields(tc.args), envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.App(make([]byte, 32), nil, "test").HTTP.LeanOff; got != tc.leanOff {
			t.Errorf("%q %v: LeanOff %v, want %v", tc.args, tc.env, got, tc.leanOff)
		}
	}
}

// TestStoreCompressionConfig: HEARTH_STORE_COMPRESSION defaults to none
// (bounded table memory), takes snappy (earlier versions' options) from
// the environment or the flag, reaches the store's options, and a wrong
// value is refused by name.
func TestStoreCompressionConfig(t *testing.T) {
	cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_STORE_COMPRESSION": "zstd"}))
	if err == nil {
		err = cfg.Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "HEARTH_STORE_COMPRESSION") {
		t.Errorf("zstd: err = %v, want a refusal naming HEARTH_STORE_COMPRESSION", err)
	}
	for _, tc := range []struct {
		args   string
		env    map[string]string
		snappy bool
	}{
		{"", nil, false},
		{"", map[string]string{"HEARTH_STORE_COMPRESSION": "Snappy"}, true},
		{"-store-compression=snappy", nil, true},
		{"-store-compression=none", map[string]string{"HEARTH_STORE_COMPRESSION": "snappy"}, false},
	} {
		cfg, _, err := Load("serve", strings.Fields(tc.args), envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.App(make([]byte, 32), nil, "test").StoreSnappy; got != tc.snappy {
			t.Errorf("%q %v: StoreSnappy %v, want %v", tc.args, tc.env, got, tc.snappy)
		}
	}
}
