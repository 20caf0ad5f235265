package memory

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
)

// legacyVecPrefix held a copy of every vector (vec/<memoryID>/<chunkID>)
// before the search index became their only store.
const legacyVecPrefix = "vec/"

// dropLegacyVectors deletes the vec/ records of data dirs written before
// the index became the only store of vectors. Open runs it in the
// background; it is idempotent, and a run cut short by Close continues on
// the next Open.
func (s *Service) dropLegacyVectors(ctx context.Context) {
	var found bool
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan(legacyVecPrefix, "", func(string, []byte) error {
			found = true
			return engine.ErrStopScan
		})
	})
	if err != nil || !found {
		if err != nil && ctx.Err() == nil {
			s.log.Error("cannot look for legacy vector records", "err", err)
		}
		return
	}
	start := s.now()
	s.log.Info("deleting the engine's copy of the vectors (vec/); the search index keeps its own")
	if err := s.deletePrefix(ctx, legacyVecPrefix); err != nil {
		if ctx.Err() == nil {
			s.log.Error("cannot delete legacy vector records", "err", err)
		}
		return
	}
	s.log.Info("deleted the legacy vector records", "took", s.now().Sub(start))
}
