package memory

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

var _ engine.ChunkSource = (*Service)(nil)

// ScanChunkTexts implements engine.ChunkSource over the chunk records, the
// source of truth for chunk texts: the search index rebuilds a lost or
// stale keyword index from them. Every stored chunk is listed, whether its
// version is live or not, as the index holds them all. Malformed records
// are skipped.
func (s *Service) ScanChunkTexts(ctx context.Context, memoryID string, fn func(chunkID, text string) error) error {
	prefix := chunkPrefix(memoryID)
	return s.store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan(prefix, "", func(key string, b []byte) error {
			var r chunkRecord
			if json.Unmarshal(b, &r) != nil {
				s.log.Warn("skipping a malformed chunk record", "key", key)
				return nil
			}
			return fn(strings.TrimPrefix(key, prefix), r.Text)
		})
	})
}

// checkChunkQuota refuses, with USAGE_EXCEEDED, chunks of chunkBytes
// bytes for doc when they would take the owner past the byte quota; the
// live version's chunks, which they replace, are taken off first. It is a
// read-only check before embedding; completeIngest charges the bytes in
// the transaction that makes the version live.
func (s *Service) checkChunkQuota(ctx context.Context, owner string, doc *Document, chunkBytes int64) error {
	add := chunkBytes - doc.Live.StoredChunkBytes()
	if add <= 0 {
		return nil
	}
	return s.quotas.CheckBytes(ctx, owner, add)
}
