package config

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
)

// TestPackConfig: HEARTH_MAX_PACK_BYTES defaults to 1 GiB, is read from
// env and flag, reaches the server's configuration, and is refused out of
// its range.
func TestPackConfig(t *testing.T) {
	cfg, _, err := Load("serve", nil, envMap(nil))
	if err != nil || cfg.Validate() != nil || cfg.MaxPackBytes != server.DefaultMaxPackBytes || server.DefaultMaxPackBytes != 1<<30 {
		t.Fatalf("default: %v %d", err, cfg.MaxPackBytes)
	}
	cfg, _, err = Load("serve", []string{"-max-pack-bytes", "5242880"}, envMap(map[string]string{"HEARTH_MAX_PACK_BYTES": "2097152"}))
	if err != nil || cfg.Validate() != nil || cfg.MaxPackBytes != 5<<20 {
		t.Fatalf("flag over env: %v %d", err, cfg.MaxPackBytes)
	}
	if ac := cfg.App(make([]byte, 32), nil, "test"); ac.HTTP.MaxPackBytes != 5<<20 {
		t.Fatalf("server config: %d", ac.HTTP.MaxPackBytes)
	}
	for _, v := range []string{"1000", "2199023255553", "-1"} {
		cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_MAX_PACK_BYTES": v}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "HEARTH_MAX_PACK_BYTES") {
			t.Errorf("%s: err = %v", v, err)
		}
	}
}
