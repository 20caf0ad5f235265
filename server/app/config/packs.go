package config

import (
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

// maxPackLimit is the largest HEARTH_MAX_PACK_BYTES: 1 TiB.
const maxPackLimit = 1 << 40

// applyPacks copies the pack settings into the server's configuration.
func (c *Config) applyPacks(h *server.Config) { h.MaxPackBytes = c.MaxPackBytes }
