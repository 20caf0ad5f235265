package memory

import (
	"context"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Bounds of one write transaction: Badger refuses transactions much over a
// few MB, so bulk writes and deletes are cut into pieces of this size.
const (
	txnMaxBytes = 1 << 20
	txnMaxOps   = 1000
)

// versionPrefix is the chunk-id prefix of a document version.
func versionPrefix(version string) string { return version + "." }

// chunkVersion returns the version part of a chunk id.
func chunkVersion(chunkID string) string {
	v, _, _ := strings.Cut(chunkID, ".")
	return v
}

// purgeVersion removes a version's chunks from the index (vectors
// included), then its chunk records, then (unless keepBlob) its blob. Every step is
// idempotent, so an interrupted purge is simply run again.
func (s *Service) purgeVersion(ctx context.Context, memID, version, blob string, keepBlob bool) error {
	if version == "" {
		return nil
	}
	ids, err := s.chunkIDs(ctx, memID, version)
	if err != nil {
		return err
	}
	for len(ids) > 0 {
		n := min(len(ids), txnMaxOps)
		if err := s.index.Remove(ctx, memID, ids[:n]); err != nil {
			return err
		}
		if err := s.deleteKeys(ctx, memID, ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	if !keepBlob && blob != "" {
		return s.store.DeleteBlob(ctx, blob)
	}
	return nil
}

// chunkIDs lists the stored chunk ids of a version, in order.
func (s *Service) chunkIDs(ctx context.Context, memID, version string) ([]string, error) {
	var ids []string
	prefix := chunkPrefix(memID)
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan(prefix+versionPrefix(version), "", func(key string, _ []byte) error {
			ids = append(ids, strings.TrimPrefix(key, prefix))
			return nil
		})
	})
	return ids, err
}

// deleteKeys removes the chunk records of chunk ids.
func (s *Service) deleteKeys(ctx context.Context, memID string, ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), txnMaxOps)
		err := s.update(ctx, func(tx engine.Tx) error {
			for _, id := range ids[:n] {
				if err := tx.Delete(chunkKey(memID, id)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// dropMemory removes what is left of a deleted memory: its index (vectors
// included), then its documents' blobs and records, then its chunks.
func (s *Service) dropMemory(ctx context.Context, owner, memID string) error {
	if err := s.index.DropMemory(ctx, memID); err != nil {
		return err
	}
	for {
		var docs []*Document
		err := s.store.View(ctx, func(tx engine.Tx) error {
			return engine.ScanJSON(tx, docPrefix(memID), func(d *Document) error {
				docs = append(docs, d)
				if len(docs) >= txnMaxOps/4 {
					return engine.ErrStopScan
				}
				return nil
			})
		})
		if err != nil {
			return err
		}
		if len(docs) == 0 {
			break
		}
		for _, d := range docs {
			if err := s.store.DeleteBlob(ctx, d.Current.Blob); err != nil {
				return err
			}
			if d.Live != nil && d.Live.Blob != d.Current.Blob {
				if err := s.store.DeleteBlob(ctx, d.Live.Blob); err != nil {
					return err
				}
			}
		}
		err = s.update(ctx, func(tx engine.Tx) error {
			var n, size int64
			for _, d := range docs {
				// Release only what is still there (a resumed drop).
				if ok, err := tx.Exists(docKey(memID, d.Name)); err != nil || !ok {
					if err != nil {
						return err
					}
					continue
				}
				if err := tx.Delete(docKey(memID, d.Name)); err != nil {
					return err
				}
				n, size = n+1, size+d.Current.Size+d.Live.StoredChunkBytes()
			}
			if err := s.publishDocs(tx, memID); err != nil {
				return err
			}
			return s.quotas.ChargeTx(tx, owner, -n, -size)
		})
		if err != nil {
			return err
		}
	}
	// Blobs no document names: an upload or a pack import stopped
	// before it recorded its document.
	if err := s.dropBlobs(ctx, memID); err != nil {
		return err
	}
	// vec/ held a second copy of the vectors before the index became their
	// only store; a memory dropped before the migration still has some.
	for _, prefix := range []string{chunkPrefix(memID), crawlPrefix(memID), legacyVecPrefix + memID + "/"} {
		if err := s.deletePrefix(ctx, prefix); err != nil {
			return err
		}
	}
	s.docsets.invalidate(memID)
	return nil
}

// deletePrefix deletes every key under prefix in bounded transactions.
func (s *Service) deletePrefix(ctx context.Context, prefix string) error {
	for {
		var keys []string
		err := s.store.View(ctx, func(tx engine.Tx) error {
			return tx.Scan(prefix, "", func(key string, _ []byte) error {
				keys = append(keys, key)
				if len(keys) >= txnMaxOps {
					return engine.ErrStopScan
				}
				return nil
			})
		})
		if err != nil || len(keys) == 0 {
			return err
		}
		err = s.update(ctx, func(tx engine.Tx) error {
			for _, k := range keys {
				if err := tx.Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}

// dropBlobs deletes every blob of a memory (see blobID) through the
// store's engine.BlobLister; a store that cannot list blobs has the
// orphan sweep only.
func (s *Service) dropBlobs(ctx context.Context, memID string) error {
	l, ok := s.store.(engine.BlobLister)
	if !ok {
		return nil
	}
	var ids []string
	prefix := memID + "/"
	err := l.ListBlobs(ctx, prefix, func(id string) error {
		if !strings.HasPrefix(id, prefix) {
			return engine.ErrStopScan
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.store.DeleteBlob(ctx, id); err != nil {
			return err
		}
	}
	return nil
}
