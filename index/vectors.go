package index

import (
	"context"
	"errors"

	"github.com/hearth-dev/hearth/engine"
)

// Vectors implements engine.SearchIndex: it reads the vectors of chunkIDs
// from the store in one snapshot, not from the in-memory graph, so every
// node of a cluster answers alike and nothing has to be loaded. A chunk
// without a stored vector (keyword-only memories, unknown ids) gets nil.
func (m *Manager) Vectors(ctx context.Context, memoryID string, chunkIDs []string) ([][]float32, error) {
	if err := checkMemoryID(memoryID); err != nil {
		return nil, err
	}
	out := make([][]float32, len(chunkIDs))
	err := m.store.View(ctx, func(tx engine.Tx) error {
		for i, id := range chunkIDs {
			b, err := tx.GetRaw(vecKey(memoryID, id))
			if errors.Is(err, engine.ErrNotFound) || engine.IsNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			_, v, err := decodeVec(b)
			if err != nil {
				return err
			}
			out[i] = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
