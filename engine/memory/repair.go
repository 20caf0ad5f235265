package memory

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// keywordChecker is implemented by index.Manager.
type keywordChecker interface {
	KeywordMissing(memoryID string) bool
}

// repairKeywordIndexes rebuilds the keyword indexes that are missing while
// their memory has chunks: a backup holds the records (chunk texts and
// vectors) but not the Bleve files beside the database, so after a restore
// keyword and hybrid retrieval would otherwise find nothing. It runs in
// Open, before the workers start, and costs one directory check per memory
// when nothing is missing.
func (s *Service) repairKeywordIndexes(ctx context.Context) error {
	kc, ok := s.index.(keywordChecker)
	if !ok {
		return nil
	}
	var mems []*Memory
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return engine.ScanJSON(tx, "memory/", func(m *Memory) error {
			if kc.KeywordMissing(m.ID) {
				mems = append(mems, m)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, m := range mems {
		n, err := s.reindexKeywords(ctx, m)
		if err != nil {
			return err
		}
		if n > 0 {
			s.log.Info("rebuilt a missing keyword index from stored chunks", "memory", m.Name, "owner", m.Owner, "chunks", n)
		}
	}
	return nil
}

// reindexKeywords adds every stored chunk of a memory to the index again
// (with its vector, so the vector index is unchanged: Add replaces).
func (s *Service) reindexKeywords(ctx context.Context, m *Memory) (int, error) {
	prefix := chunkPrefix(m.ID)
	total, after := 0, ""
	for {
		var batch []engine.IndexedChunk
		err := s.store.View(ctx, func(tx engine.Tx) error {
			return tx.Scan(prefix, after, func(key string, b []byte) error {
				var r chunkRecord
				if json.Unmarshal(b, &r) != nil {
					return nil
				}
				batch = append(batch, engine.IndexedChunk{ID: strings.TrimPrefix(key, prefix), Text: r.Text})
				after = key
				if len(batch) >= 256 {
					return engine.ErrStopScan
				}
				return nil
			})
		})
		if err != nil || len(batch) == 0 {
			return total, err
		}
		keep := batch[:0]
		for _, c := range batch {
			if !m.KeywordOnly() {
				v, err := s.loadVector(ctx, m.ID, c.ID)
				if err != nil {
					return total, err
				}
				if v == nil {
					continue // never embedded: nothing to restore for it
				}
				c.Vector = v
			}
			keep = append(keep, c)
		}
		if len(keep) > 0 {
			if err := s.index.Add(ctx, m.ID, keep); err != nil {
				return total, err
			}
			total += len(keep)
		}
	}
}
