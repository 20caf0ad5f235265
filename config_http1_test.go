package main

import (
	"strings"
	"testing"
)

// TestServerHTTP1Config: HEARTH_SERVER_HTTP1 defaults to lean, takes
// stdlib from the environment or the flag, turns the server's lean path
// off, and a wrong value is refused by name.
func TestServerHTTP1Config(t *testing.T) {
	for _, v := range []string{"0", "fast"} {
		cfg, _, err := loadConfig("serve", nil, envMap(map[string]string{"HEARTH_SERVER_HTTP1": v}))
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
		cfg, _, err := loadConfig("serve", strings.Fields(tc.args), envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := appConfig(cfg, make([]byte, 32), nil).HTTP.LeanOff; got != tc.leanOff {
			t.Errorf("%q %v: LeanOff %v, want %v", tc.args, tc.env, got, tc.leanOff)
		}
	}
}

// TestStoreCompressionConfig: HEARTH_STORE_COMPRESSION defaults to
// snappy, takes none (bounded table memory) from the environment or the
// flag, reaches the store's options, and a wrong value is refused by name.
func TestStoreCompressionConfig(t *testing.T) {
	cfg, _, err := loadConfig("serve", nil, envMap(map[string]string{"HEARTH_STORE_COMPRESSION": "zstd"}))
	if err == nil {
		err = cfg.Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "HEARTH_STORE_COMPRESSION") {
		t.Errorf("zstd: err = %v, want a refusal naming HEARTH_STORE_COMPRESSION", err)
	}
	for _, tc := range []struct {
		args    string
		env     map[string]string
		bounded bool
	}{
		{"", nil, false},
		{"", map[string]string{"HEARTH_STORE_COMPRESSION": "None"}, true},
		{"-store-compression=none", nil, true},
		{"-store-compression=snappy", map[string]string{"HEARTH_STORE_COMPRESSION": "none"}, false},
	} {
		cfg, _, err := loadConfig("serve", strings.Fields(tc.args), envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := appConfig(cfg, make([]byte, 32), nil).StoreBounded; got != tc.bounded {
			t.Errorf("%q %v: StoreBounded %v, want %v", tc.args, tc.env, got, tc.bounded)
		}
	}
}
