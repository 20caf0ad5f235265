package config

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutboundConfig: bad values are refused naming the new settings, and
// HEARTH_OUTBOUND / HEARTH_OUTBOUND_HOSTS (flag, env) reach the app config.
func TestOutboundConfig(t *testing.T) {
	expectRefused(t, map[string]envCase{
		"unknown mode":      {map[string]string{"HEARTH_OUTBOUND": "closed"}, `HEARTH_OUTBOUND: must be open or allowlist, got "closed"`},
		"URL in hosts":      {map[string]string{"HEARTH_OUTBOUND": "allowlist", "HEARTH_OUTBOUND_HOSTS": "https://api.example.com"}, "HEARTH_OUTBOUND_HOSTS"},
		"port out of range": {map[string]string{"HEARTH_OUTBOUND_HOSTS": "ollama:70000"}, "HEARTH_OUTBOUND_HOSTS"},
		"old name, bad":     {map[string]string{"HEARTH_EGRESS": "closed"}, `HEARTH_EGRESS: must be open or allowlist, got "closed"`},
		"allow not a CIDR":  {map[string]string{"HEARTH_OUTBOUND_ALLOW": "10.0.0.1"}, `HEARTH_OUTBOUND_ALLOW: must be comma-separated CIDR prefixes such as 10.1.0.0/16, got "10.0.0.1"`},
	})
	cfg, err := loadValid(t, []string{"-outbound", "AllowList"}, map[string]string{
		"HEARTH_OUTBOUND_HOSTS": "127.0.0.1:11434, 10.0.0.0/8,api.example.com", "HEARTH_APPLY_DIR": "/etc/hearth",
		"HEARTH_OUTBOUND_ALLOW_PRIVATE": "true", "HEARTH_OUTBOUND_ALLOW": "192.168.7.0/24"})
	if err != nil {
		t.Fatal(err)
	}
	ac := cfg.App(make([]byte, 32), nil, "test")
	if ac.OutboundMode != "allowlist" || strings.Join(ac.OutboundHosts, " ") != "127.0.0.1:11434 10.0.0.0/8 api.example.com" || cfg.ApplyDir != "/etc/hearth" {
		t.Fatalf("outbound settings: %q %q %q", ac.OutboundMode, ac.OutboundHosts, cfg.ApplyDir)
	}
	if !ac.Outbound.AllowPrivate || len(ac.Outbound.Allow) != 1 || ac.Outbound.Allow[0] != netip.MustParsePrefix("192.168.7.0/24") {
		t.Fatalf("address policy: %+v", ac.Outbound)
	}
	if len(cfg.Warnings()) != 0 {
		t.Fatalf("new names warned: %q", cfg.Warnings())
	}
}

// TestOutboundOldNames: HEARTH_EGRESS and HEARTH_EGRESS_ALLOW, their flags
// and their file keys still work, each with one deprecation warning naming
// the new name (in Warnings and -config-dump), and an entry of the old
// host list still does not open private addresses to user-supplied URLs.
func TestOutboundOldNames(t *testing.T) {
	check := func(t *testing.T, cfg Config, want ...string) {
		t.Helper()
		ac := cfg.App(make([]byte, 32), nil, "test")
		if ac.OutboundMode != "allowlist" || strings.Join(ac.OutboundHosts, " ") != "10.0.0.0/8 ollama.internal:11434" {
			t.Fatalf("outbound settings: %q %q", ac.OutboundMode, ac.OutboundHosts)
		}
		if ac.Outbound.AllowPrivate || len(ac.Outbound.Allow) != 0 || ac.Outbound.CheckAddr(netip.MustParseAddr("10.1.2.3")) == nil {
			t.Fatalf("an old host-list entry opened private addresses to user-supplied URLs: %+v", ac.Outbound)
		}
		if got := cfg.Warnings(); len(got) != len(want) {
			t.Fatalf("warnings %q, want %d", got, len(want))
		}
		var dump bytes.Buffer
		cfg.Dump(&dump)
		for _, w := range want {
			if !strings.Contains(strings.Join(cfg.Warnings(), "\n"), w) || !strings.Contains(dump.String(), "# deprecated: "+w) {
				t.Errorf("no warning %q in %q / dump:\n%s", w, cfg.Warnings(), dump.String())
			}
		}
		if !strings.Contains(dump.String(), "HEARTH_OUTBOUND_HOSTS=10.0.0.0/8,ollama.internal:11434") {
			t.Errorf("dump lacks the new name:\n%s", dump.String())
		}
	}
	t.Run("env", func(t *testing.T) {
		cfg, err := loadValid(t, nil, map[string]string{"HEARTH_EGRESS": "allowlist", "HEARTH_EGRESS_ALLOW": "10.0.0.0/8,ollama.internal:11434"})
		if err != nil {
			t.Fatal(err)
		}
		check(t, cfg, "HEARTH_EGRESS is deprecated: use HEARTH_OUTBOUND", "HEARTH_EGRESS_ALLOW is deprecated: use HEARTH_OUTBOUND_HOSTS")
	})
	t.Run("flags", func(t *testing.T) {
		cfg, err := loadValid(t, []string{"-egress", "allowlist", "-egress-allow", "10.0.0.0/8,ollama.internal:11434"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		check(t, cfg, "-egress is deprecated: use -outbound", "-egress-allow is deprecated: use -outbound-hosts")
	})
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "hearth.json")
		if err := os.WriteFile(path, []byte(`{"egress": "allowlist", "egress_allow": "10.0.0.0/8,ollama.internal:11434", "outbound_hosts": "10.0.0.0/8,ollama.internal:11434"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := loadValid(t, nil, map[string]string{"HEARTH_CONFIG": path})
		if err != nil {
			t.Fatal(err)
		}
		check(t, cfg, "config file key egress is deprecated: use outbound", "config file key egress_allow is deprecated: use outbound_hosts")
	})
	t.Run("new name wins across sources", func(t *testing.T) {
		// The environment overrides the file whichever name each uses.
		path := filepath.Join(t.TempDir(), "hearth.json")
		if err := os.WriteFile(path, []byte(`{"outbound": "open", "outbound_hosts": "api.example.com"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := loadValid(t, nil, map[string]string{"HEARTH_CONFIG": path, "HEARTH_EGRESS": "allowlist", "HEARTH_EGRESS_ALLOW": "10.0.0.0/8,ollama.internal:11434"})
		if err != nil {
			t.Fatal(err)
		}
		check(t, cfg, "HEARTH_EGRESS is deprecated", "HEARTH_EGRESS_ALLOW is deprecated")
	})
}

// TestOutboundOldAndNewConflict: an old and a new name given different
// values in the same place are refused naming both.
func TestOutboundOldAndNewConflict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hearth.json")
	if err := os.WriteFile(path, []byte(`{"egress_allow": "a.example", "outbound_hosts": "b.example"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		args []string
		env  map[string]string
		want []string
	}{
		"env":   {nil, map[string]string{"HEARTH_EGRESS": "allowlist", "HEARTH_OUTBOUND": "open"}, []string{"HEARTH_EGRESS (deprecated)", "HEARTH_OUTBOUND are both set"}},
		"flags": {[]string{"-egress-allow", "a.example", "-outbound-hosts", "b.example"}, nil, []string{"-egress-allow (deprecated)", "-outbound-hosts"}},
		"file":  {nil, map[string]string{"HEARTH_CONFIG": path}, []string{"egress_allow (deprecated)", "outbound_hosts are both set"}},
	} {
		_, _, err := Load("serve", tc.args, envMap(tc.env))
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v, want mention of %q", name, err, w)
			}
		}
	}
	// The same value under both names is not a conflict.
	cfg, err := loadValid(t, nil, map[string]string{"HEARTH_EGRESS": "allowlist", "HEARTH_OUTBOUND": "allowlist"})
	if err != nil || cfg.OutboundMode != "allowlist" {
		t.Fatalf("same value under both names: %v %q", err, cfg.OutboundMode)
	}
}
