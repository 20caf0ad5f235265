package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// writeShared commits a change in cluster mode: in each transaction (a
// large change takes several) it reads the memory's stored seq, writes the
// vector records, the change log entry and seq+1, and publishes the memory
// on changeTopic. The change is then applied to this node's replicas, after
// the changes of other nodes that committed before it. The caller holds
// mi.mu.
func (m *Manager) writeShared(ctx context.Context, mi *memIndex, order []string, recs map[string][]float32, del []string, kwPut []engine.IndexedChunk, kwDel []string) error {
	for len(order)+len(del)+len(kwPut)+len(kwDel) > 0 {
		// The log entry repeats the records: each half of the budget.
		c := &change{}
		bytes, ops := 0, 0
		room := func() bool { return bytes < maxTxnBytes/2 && ops < maxTxnOps/2 }
		for ; len(order) > 0 && room(); order = order[1:] {
			v := recs[order[0]]
			c.vecPut, c.vecs = append(c.vecPut, order[0]), append(c.vecs, v)
			bytes, ops = bytes+4*len(v)+len(order[0]), ops+1
		}
		for ; len(del) > 0 && room(); del = del[1:] {
			c.vecDel = append(c.vecDel, del[0])
			bytes, ops = bytes+len(del[0]), ops+1
		}
		for ; len(kwPut) > 0 && room(); kwPut = kwPut[1:] {
			c.kwPut = append(c.kwPut, engine.IndexedChunk{ID: kwPut[0].ID, Text: kwPut[0].Text})
			bytes = bytes + len(kwPut[0].ID) + len(kwPut[0].Text)
		}
		for ; len(kwDel) > 0 && room(); kwDel = kwDel[1:] {
			c.kwDel = append(c.kwDel, kwDel[0])
			bytes += len(kwDel[0])
		}
		entry := c.encode()
		var prev uint64
		err := m.store.Update(ctx, func(tx engine.Tx) error {
			dropping, err := tx.Exists(dropKey(mi.id))
			if err != nil {
				return err
			}
			if dropping {
				return errDropped
			}
			if prev, err = getU64(tx, seqKey(mi.id)); err != nil {
				return err
			}
			seq := prev + 1
			for i, id := range c.vecPut {
				if err := tx.PutRaw(vecKey(mi.id, id), encodeVec(seq, c.vecs[i])); err != nil {
					return err
				}
			}
			for _, id := range c.vecDel {
				if err := tx.Delete(vecKey(mi.id, id)); err != nil {
					return err
				}
			}
			if err := tx.PutRaw(logKey(mi.id, seq), entry); err != nil {
				return err
			}
			if err := tx.PutRaw(seqKey(mi.id), encodeU64(seq)); err != nil {
				return err
			}
			return m.opts.Cluster.Publish(tx, changeTopic, mi.id)
		})
		if err == errDropped {
			return err
		}
		if err != nil {
			return engine.Wrap(err, engine.CodeInternal, "cannot store vectors")
		}
		c.seq = prev + 1
		if mi.seq != prev || mi.kwAt != prev || mi.kwStale {
			if err := m.catchUp(ctx, mi); err != nil {
				return err
			}
			continue
		}
		m.applyChange(mi, c)
		if mi.kwStale {
			return engine.Errorf(engine.CodeInternal, "cannot update the keyword index")
		}
	}
	return nil
}

// loadShared finishes a load in cluster mode: the graph is at the
// snapshot's seq (0 without one), the Bleve index at the change it
// recorded, and catchUp brings both to the stored seq.
func (m *Manager) loadShared(ctx context.Context, mi *memIndex, snapSeq uint64, info LoadInfo, start time.Time) error {
	mi.seq = snapSeq
	mi.kwAt = 0
	kw, err := openKeyword(m.bleveDir(mi.id), m.opts.KeywordAnalyzer, false)
	if err == nil && kw != nil {
		at, ok, rerr := kw.seqAt(nodeSeqKey)
		if rerr == nil && ok {
			mi.kwAt = at
			m.setKeyword(mi, kw)
		} else {
			// Written in the embedded mode or by an unfinished rebuild:
			// the log replays onto an empty index, or it is rebuilt.
			kw.close()
			info.KeywordRebuilt = "the keyword index has no record of this node's position"
		}
	} else if err != nil {
		info.KeywordRebuilt = "the keyword index could not be opened (" + err.Error() + ")"
	}
	if mi.kwAt == 0 {
		m.removeKeywordDir(mi)
	}
	before := mi.vec.Len()
	if err := m.catchUp(ctx, mi); err != nil {
		return err
	}
	if n := mi.vec.Len(); n > before {
		info.Replayed = n - before
	}
	info.Took = time.Since(start)
	mi.info = info
	m.log.Info("index loaded", "memory", mi.id, "snapshot", info.FromSnapshot, "seq", mi.seq, "vectors", mi.vec.Len(), "took", info.Took)
	return nil
}

// removeKeywordDir deletes this node's Bleve directory of the memory.
func (m *Manager) removeKeywordDir(mi *memIndex) {
	if err := os.RemoveAll(m.bleveDir(mi.id)); err != nil {
		m.log.Warn("cannot delete the keyword index", "memory", mi.id, "err", err)
		mi.kwStale = true
	}
}

// rebuildKeywordShared rebuilds this node's Bleve index from the chunk
// texts and records the stored seq read before them: changes after it are
// applied from the log again, which is harmless (puts and deletes by id).
// The new index is built aside (<bleveDir>/.rebuild/<memory>; memory ids
// never start with a dot) and swapped in, so searches use the old one
// meanwhile.
func (m *Manager) rebuildKeywordShared(ctx context.Context, mi *memIndex, reason string) error {
	var cur uint64
	if err := m.store.View(ctx, func(tx engine.Tx) error {
		var err error
		cur, err = getU64(tx, seqKey(mi.id))
		return err
	}); err != nil {
		return err
	}
	if m.chunkSource() == nil {
		m.log.Error("the keyword index needs a rebuild, but no chunk source is set", "memory", mi.id, "reason", reason)
		mi.kwAt, mi.kwStale = cur, false
		return nil
	}
	start := time.Now()
	tmp := filepath.Join(m.dir, ".rebuild", mi.id)
	if err := os.RemoveAll(tmp); err != nil {
		mi.kwStale = true
		return err
	}
	if err := os.MkdirAll(filepath.Dir(tmp), 0o755); err != nil {
		mi.kwStale = true
		return err
	}
	kw, n, err := m.buildKeyword(ctx, mi, tmp, nodeSeqKey, cur)
	if kw != nil {
		err = errors.Join(err, kw.close())
	}
	if err == nil {
		err = m.swapKeyword(mi, tmp, kw != nil)
	}
	if err != nil {
		mi.kwStale = true
		return err
	}
	mi.kwAt, mi.kwStale = cur, false
	m.log.Info("keyword index rebuilt from the stored chunk texts", "memory", mi.id, "reason", reason,
		"chunks", n, "took", time.Since(start))
	return nil
}

// swapKeyword replaces the memory's Bleve directory with tmp (or with
// nothing when built is false) and opens it, under kwMu so no search
// opens a half-moved index.
func (m *Manager) swapKeyword(mi *memIndex, tmp string, built bool) error {
	mi.kwMu.Lock()
	defer mi.kwMu.Unlock()
	if mi.kw != nil {
		mi.kw.close()
		mi.kw = nil
	}
	dir := m.bleveDir(mi.id)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if !built {
		return nil
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	kw, err := openKeyword(dir, m.opts.KeywordAnalyzer, false)
	mi.kw = kw
	return err
}

// claimSnapshot takes the memory's snapshot lock; fresh is false (and
// nothing held) when another node holds it or already stored a snapshot at
// or past this node's seq. Generations continue from the stored manifest.
func (m *Manager) claimSnapshot(ctx context.Context, mi *memIndex) (release func(), fresh bool, err error) {
	release, ok, err := m.opts.Cluster.TryLock(ctx, snapshotLock(mi.id))
	if err != nil || !ok {
		return nil, false, err
	}
	var man manifest
	err = m.store.View(ctx, func(tx engine.Tx) error {
		if err := tx.Get(manifestKey(mi.id), &man); err != nil && !engine.IsNotFound(err) {
			return err
		}
		return nil
	})
	if err != nil {
		release()
		return nil, false, engine.Wrap(err, engine.CodeInternal, "cannot read the index snapshot manifest")
	}
	mi.gen = max(mi.gen, man.Gen)
	if man.Gen != 0 && man.Seq >= mi.seq {
		mi.dirty, mi.snapB = false, man.Bytes
		release()
		return nil, false, nil
	}
	return release, true, nil
}

// trimLog deletes the change log entries covered by the stored snapshot
// and older than Options.LogRetention. Age comes from this node's marks:
// the seq it had applied at each maintenance, so entries up to a mark
// older than the retention committed before it. (A node that started less
// than LogRetention ago has no such mark and trims nothing.) One node at
// a time trims, under the snapshot lock. The caller holds mi.mu.
func (m *Manager) trimLog(ctx context.Context, mi *memIndex) error {
	now := time.Now()
	mi.marks = append(mi.marks, seqMark{now, mi.seq})
	cut := -1
	for i, mk := range mi.marks {
		if now.Sub(mk.at) >= m.opts.LogRetention {
			cut = i
		}
	}
	if cut < 0 {
		return nil
	}
	limit := mi.marks[cut].seq
	mi.marks = mi.marks[cut:]
	release, ok, err := m.opts.Cluster.TryLock(ctx, snapshotLock(mi.id))
	if err != nil || !ok {
		return err
	}
	defer release()
	var man manifest
	if err := m.store.View(ctx, func(tx engine.Tx) error { return tx.Get(manifestKey(mi.id), &man) }); err != nil {
		if engine.IsNotFound(err) {
			return nil
		}
		return err
	}
	upTo := logKey(mi.id, min(limit, man.Seq))
	for {
		var keys []string
		err := m.store.View(ctx, func(tx engine.Tx) error {
			return tx.Scan(logPrefix(mi.id), "", func(k string, _ []byte) error {
				if k > upTo || len(keys) == 256 {
					return engine.ErrStopScan
				}
				keys = append(keys, k)
				return nil
			})
		})
		if err != nil || len(keys) == 0 {
			return err
		}
		if err := m.store.Update(ctx, func(tx engine.Tx) error {
			for _, k := range keys {
				if err := tx.Delete(k); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
}
