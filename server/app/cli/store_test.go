package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4/options"
	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// TestCLIOpensStoreWithServerOptions: the commands that open the data dir
// themselves (here the account and key commands' withAccounts) open it
// with the options HEARTH_STORE_COMPRESSION or the config file give the
// server: bounded tables and the 256-byte value threshold by default,
// Snappy and 4 KiB with snappy; a wrong value is refused by name.
func TestCLIOpensStoreWithServerOptions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hearth.json")
	if err := os.WriteFile(file, []byte(`{"store_compression": "snappy"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env       map[string]string
		comp      options.CompressionType
		threshold int64
	}{
		{nil, options.None, 256},
		{map[string]string{"HEARTH_STORE_COMPRESSION": "none"}, options.None, 256},
		{map[string]string{"HEARTH_STORE_COMPRESSION": "snappy"}, options.Snappy, 4 << 10},
		{map[string]string{"HEARTH_CONFIG": file}, options.Snappy, 4 << 10},
		{map[string]string{"HEARTH_CONFIG": file, "HEARTH_STORE_COMPRESSION": "none"}, options.None, 256},
	} {
		c := cliIO{getenv: envMap(tc.env)}
		err := withAccounts(c, t.TempDir(), func(_ context.Context, store engine.Store, _ *engine.Accounts) error {
			o := store.(*blob.Store).DB().Opts()
			if o.Compression != tc.comp || o.ValueThreshold != tc.threshold {
				t.Errorf("%v: the CLI's store opened with compression %v, value threshold %d; want %v, %d", tc.env, o.Compression, o.ValueThreshold, tc.comp, tc.threshold)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err := withAccounts(cliIO{getenv: envMap(map[string]string{"HEARTH_STORE_COMPRESSION": "zstd"})}, t.TempDir(),
		func(context.Context, engine.Store, *engine.Accounts) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "HEARTH_STORE_COMPRESSION") {
		t.Fatalf("zstd: err = %v, want a refusal naming HEARTH_STORE_COMPRESSION", err)
	}
}
