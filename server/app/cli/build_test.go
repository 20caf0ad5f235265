package cli

import (
	"io"
	"testing"

	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/app/config"
)

// testConfig is the default configuration on data dir dir, logging only
// errors, listening on a free loopback port, with adminKey as the first
// user's key ("": generated); it fails the test if it does not validate.
func testConfig(t *testing.T, dir, adminKey string) config.Config {
	t.Helper()
	cfg := config.Default()
	cfg.Data, cfg.Addr, cfg.LogLevel, cfg.AdminKey = dir, "127.0.0.1:0", "error", adminKey
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// buildApp builds the application of cfg as hearth serve does, failing
// the test on error.
func buildApp(t *testing.T, cfg config.Config) *app.App {
	t.Helper()
	a, err := Build(cfg, envMap(nil), cfg.Logger(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
