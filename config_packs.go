package main

import (
	"fmt"

	"github.com/hearth-dev/hearth/server"
)

// PackSettings are the memory pack settings (docs/memories-and-retrieval.md#memory-packs).
// Config embeds them, so their JSON keys sit at the top level of the
// config file.
type PackSettings struct {
	// MaxPackBytes caps the body of POST /v1/memory/import, in bytes.
	MaxPackBytes int64 `json:"max_pack_bytes"`
}

func defaultPackSettings() PackSettings {
	return PackSettings{MaxPackBytes: server.DefaultMaxPackBytes}
}

func (c *Config) packVars() []configVar {
	return []configVar{
		{env: "HEARTH_MAX_PACK_BYTES", flag: "max-pack-bytes", usage: "largest memory pack POST /v1/memory/import (hearth memory import) accepts, in bytes", num: &c.MaxPackBytes},
	}
}

// maxPackLimit is the largest HEARTH_MAX_PACK_BYTES: 1 TiB.
const maxPackLimit = 1 << 40

// validatePacks checks the memory pack settings.
func (c *Config) validatePacks() []error {
	if c.MaxPackBytes < 1<<20 || c.MaxPackBytes > maxPackLimit {
		return []error{fmt.Errorf("HEARTH_MAX_PACK_BYTES %d: must be from 1 MiB (%d) to 1 TiB (%d)", c.MaxPackBytes, 1<<20, int64(maxPackLimit))}
	}
	return nil
}

// applyPacks copies the pack settings into the server's configuration.
func (c *Config) applyPacks(h *server.Config) { h.MaxPackBytes = c.MaxPackBytes }
