package index

import (
	"errors"
	"io/fs"
	"os"
)

// KeywordMissing reports whether a memory has no keyword (Bleve) index on
// disk. Bleve files live beside the database, not in it, so a data dir
// restored from a backup has none; the memory engine then rebuilds them
// from its chunk records at start.
func (m *Manager) KeywordMissing(memoryID string) bool {
	_, err := os.Stat(m.bleveDir(memoryID))
	return errors.Is(err, fs.ErrNotExist)
}
