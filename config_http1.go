package main

import (
	"fmt"
	"strings"
)

// serverHTTP1Vars are the settings of the HTTP/1.1 server (docs/operations.md#hardening).
func (c *Config) serverHTTP1Vars() []configVar {
	return []configVar{
		{env: "HEARTH_SERVER_HTTP1", flag: "server-http1", usage: "reader of plain HTTP/1.1 requests: lean (simple requests read by Hearth, the rest by net/http; default) or stdlib (every request read by Go's net/http server)", str: &c.ServerHTTP1},
	}
}

// validateServerHTTP1 checks HEARTH_SERVER_HTTP1; empty means lean.
func (c *Config) validateServerHTTP1() []error {
	switch v := strings.ToLower(strings.TrimSpace(c.ServerHTTP1)); v {
	case "", "lean":
		c.ServerHTTP1 = "lean"
	case "stdlib":
		c.ServerHTTP1 = v
	default:
		return []error{fmt.Errorf("HEARTH_SERVER_HTTP1 %q: use lean or stdlib", c.ServerHTTP1)}
	}
	return nil
}

// storeVars are the settings of the embedded store (docs/configuration.md).
func (c *Config) storeVars() []configVar {
	return []configVar{
		{env: "HEARTH_STORE_COMPRESSION", flag: "store-compression", usage: "options of the embedded store: none (default: 16 MiB memtables, uncompressed 8 MiB tables, records from 256 bytes in the value log; bounded memory under sustained writes) or snappy (the options of earlier versions: Snappy tables, 32 MiB memtables, 4 KiB value threshold; table builders up to about 1 GiB under sustained writes)", str: &c.StoreCompression},
	}
}

// validateStoreCompression checks HEARTH_STORE_COMPRESSION; empty means none.
func (c *Config) validateStoreCompression() []error {
	switch v := strings.ToLower(strings.TrimSpace(c.StoreCompression)); v {
	case "", "none":
		c.StoreCompression = "none"
	case "snappy":
		c.StoreCompression = v
	default:
		return []error{fmt.Errorf("HEARTH_STORE_COMPRESSION %q: use none or snappy", c.StoreCompression)}
	}
	return nil
}
