package config

import (
	"github.com/hearth-dev/hearth/blob"
)

// StoreOptions returns the options of the embedded store in dir as `hearth
// serve` opens it, for the commands that open a data dir themselves
// (backup, restore, migrate, account and key commands): they take the
// server's store_compression from its config file (HEARTH_CONFIG) and
// HEARTH_STORE_COMPRESSION, so what they write uses the same tables and
// value threshold as the server's writes (either setting reads data dirs
// the other wrote).
func StoreOptions(dir string, getenv func(string) string) (blob.Options, error) {
	c, _, err := Load("serve", nil, getenv)
	if err == nil {
		err = c.checkOptions("HEARTH_STORE_COMPRESSION")
	}
	if err != nil {
		return blob.Options{}, err
	}
	return blob.Options{Dir: dir, Snappy: c.StoreCompression == "snappy"}, nil
}
