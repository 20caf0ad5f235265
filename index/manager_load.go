package index

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// load restores a memory's graph: the snapshot when it is valid, then a
// replay of the vector records written after it (all of them when there is
// no usable snapshot, which is a full rebuild). The caller holds mi.mu.
func (m *Manager) load(ctx context.Context, mi *memIndex) error {
	start := time.Now()
	var (
		seq      uint64
		man      manifest
		hasMan   bool
		dropping bool
	)
	err := m.store.View(ctx, func(tx engine.Tx) error {
		var err error
		if dropping, err = tx.Exists(dropKey(mi.id)); err != nil {
			return err
		}
		if seq, err = getU64(tx, seqKey(mi.id)); err != nil {
			return err
		}
		err = tx.Get(manifestKey(mi.id), &man)
		if engine.IsNotFound(err) {
			return nil
		}
		hasMan = err == nil
		return err
	})
	if err != nil {
		return err
	}
	mi.vec = NewHNSW(m.opts.HNSW)
	if dropping {
		m.log.Warn("finishing an interrupted memory drop", "memory", mi.id)
		return m.drop(ctx, mi.id)
	}
	mi.seq = seq
	var info LoadInfo
	snapSeq := uint64(0)
	if hasMan {
		mi.gen = man.Gen
		if err := m.readSnapshot(ctx, mi, man, seq); err != nil {
			m.log.Warn("index snapshot unusable, rebuilding from stored vectors", "memory", mi.id, "err", err)
			mi.vec = NewHNSW(m.opts.HNSW)
		} else {
			snapSeq, info.FromSnapshot, mi.snapB = man.Seq, true, man.Bytes
		}
	}
	if m.shared {
		return m.loadShared(ctx, mi, snapSeq, info, start)
	}
	if snapSeq != seq {
		if info.Replayed, info.Removed, _, err = m.replay(ctx, mi, snapSeq); err != nil {
			return err
		}
		mi.dirty = true
	}
	// Remove parts of other generations: leftovers of a snapshot write that
	// crashed before its manifest, or of a cleanup that did not finish.
	keepGen := uint64(0)
	if info.FromSnapshot {
		keepGen = man.Gen
	}
	if err := m.gcSnapshots(ctx, mi.id, keepGen, man.Parts); err != nil {
		m.log.Warn("index snapshot cleanup failed", "memory", mi.id, "err", err)
	}
	if info.KeywordRebuilt, err = m.loadKeyword(ctx, mi); err != nil {
		return err
	}
	info.Took = time.Since(start)
	mi.info = info
	if info.Replayed+info.Removed > 0 || info.FromSnapshot || info.KeywordRebuilt != "" {
		m.log.Info("index loaded", "memory", mi.id, "snapshot", info.FromSnapshot,
			"replayed", info.Replayed, "removed", info.Removed, "vectors", mi.vec.Len(), "took", info.Took)
	}
	return nil
}

func (m *Manager) readSnapshot(ctx context.Context, mi *memIndex, man manifest, seq uint64) error {
	if man.Format != snapshotFormat {
		return errors.New("unknown snapshot format")
	}
	if man.Seq > seq {
		return errors.New("snapshot is newer than the stored vectors")
	}
	return m.store.View(ctx, func(tx engine.Tx) error {
		pr := &partReader{tx: tx, mem: mi.id, man: man, crc: crc32.New(castagnoli)}
		if _, err := mi.vec.ReadFrom(pr); err != nil {
			return err
		}
		return pr.verify()
	})
}

// replayBatch is how many stored vectors a replay inserts at once.
const replayBatch = 8192

// replay brings the graph up to date with the stored vector records:
// records newer than the snapshot are inserted, and graph nodes whose
// record is gone are deleted.
// It returns the stored sequence number the records were read at.
func (m *Manager) replay(ctx context.Context, mi *memIndex, since uint64) (added, removed int, seq uint64, err error) {
	n := mi.vec.nodes()
	seen := make([]bool, n)
	prefix := vecPrefix(mi.id)
	// Records are inserted in batches, which link on several goroutines.
	var ids []string
	var vecs [][]float32
	flush := func() {
		if err := mi.vec.AddBatch(ids, vecs); err != nil {
			// A bad record spoils its batch: insert one by one to skip it.
			for i, id := range ids {
				if err := mi.vec.Add(id, vecs[i]); err != nil {
					m.log.Warn("skipping a vector record", "memory", mi.id, "chunk", id, "err", err)
					added--
				}
			}
		}
		ids, vecs = ids[:0], vecs[:0]
	}
	err = m.store.View(ctx, func(tx engine.Tx) error {
		if seq, err = getU64(tx, seqKey(mi.id)); err != nil {
			return err
		}
		return tx.Scan(prefix, "", func(key string, val []byte) error {
			id := strings.TrimPrefix(key, prefix)
			if len(val) >= 8 {
				if binary.LittleEndian.Uint64(val) <= since {
					if i, ok := mi.vec.lookup(id); ok {
						seen[i] = true
						return nil
					}
				}
			}
			_, v, err := decodeVec(val)
			if err != nil {
				m.log.Warn("skipping a malformed vector record", "memory", mi.id, "chunk", id)
				return nil
			}
			ids, vecs = append(ids, id), append(vecs, v)
			added++
			if len(ids) == replayBatch {
				flush()
			}
			return ctx.Err()
		})
	})
	if err == nil {
		flush()
	}
	if err != nil {
		return added, 0, 0, err
	}
	removed = mi.vec.sweep(n, func(i uint32) bool { return seen[i] })
	return added, removed, seq, nil
}

// snapshot writes the graph under a new generation when it changed; the
// old generation is deleted after the new manifest is committed. The caller
// holds mi.mu, so the graph matches mi.seq while it is written.
func (m *Manager) snapshot(ctx context.Context, mi *memIndex) error {
	if !mi.loaded.Load() || mi.dropped || !mi.dirty {
		return nil
	}
	if m.shared {
		release, fresh, err := m.claimSnapshot(ctx, mi)
		if err != nil || !fresh {
			return err
		}
		defer release()
	}
	start := time.Now()
	pw := &partWriter{
		ctx: ctx, store: m.store, mem: mi.id, gen: mi.gen + 1,
		partSize: m.partSize, perTxn: partsPerTxn, crc: crc32.New(castagnoli),
	}
	if _, err := mi.vec.WriteTo(pw); err != nil {
		return engine.Wrap(err, engine.CodeInternal, "cannot write the index snapshot")
	}
	man, err := pw.commit(manifest{
		Seq: mi.seq, Nodes: mi.vec.nodes(), Live: mi.vec.Len(), Dim: mi.vec.dim(), Written: time.Now().UTC(),
	})
	if err != nil {
		return engine.Wrap(err, engine.CodeInternal, "cannot write the index snapshot")
	}
	mi.gen, mi.dirty, mi.snapB = man.Gen, false, man.Bytes
	if err := m.gcSnapshots(ctx, mi.id, man.Gen, man.Parts); err != nil {
		m.log.Warn("index snapshot cleanup failed", "memory", mi.id, "err", err)
	}
	m.log.Debug("index snapshot written", "memory", mi.id, "bytes", man.Bytes, "parts", man.Parts, "took", time.Since(start))
	return nil
}

// gcSnapshots deletes every snapshot part that is not one of the first
// parts of generation keep.
func (m *Manager) gcSnapshots(ctx context.Context, mem string, keep uint64, parts int) error {
	return deleteKeys(ctx, m.store, snapPrefix(mem), func(key string) bool {
		g, p, ok := parseGenPart(mem, key)
		return ok && keep != 0 && g == keep && p < parts
	})
}

// drop deletes everything the index stores for a memory. The drop marker is
// written first and deleted last, so an interrupted drop is finished on the
// next load instead of resurrecting half the vectors.
func (m *Manager) drop(ctx context.Context, mem string) error {
	if err := m.store.Update(ctx, func(tx engine.Tx) error {
		if err := tx.PutRaw(dropKey(mem), []byte{1}); err != nil {
			return err
		}
		for _, k := range []string{manifestKey(mem), seqKey(mem)} {
			if err := tx.Delete(k); err != nil {
				return err
			}
		}
		return m.opts.Cluster.Publish(tx, changeTopic, mem)
	}); err != nil {
		return engine.Wrap(err, engine.CodeInternal, "cannot delete the memory index")
	}
	if err := os.RemoveAll(m.bleveDir(mem)); err != nil {
		return engine.Wrap(err, engine.CodeInternal, "cannot delete the keyword index")
	}
	drop := dropKey(mem)
	if err := deleteKeys(ctx, m.store, memPrefix(mem), func(k string) bool { return k == drop }); err != nil {
		return engine.Wrap(err, engine.CodeInternal, "cannot delete the memory index")
	}
	if err := m.store.Update(ctx, func(tx engine.Tx) error { return tx.Delete(drop) }); err != nil {
		return engine.Wrap(err, engine.CodeInternal, "cannot delete the memory index")
	}
	return nil
}
