package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// The Bleve indexes live outside the store (under the Bleve directory), so
// they can fall behind it: a backup holds only the store, a kill can come
// before Bleve persisted its last batches, a disk can corrupt files. Every
// keyword change therefore carries a sequence number, committed to the
// store (idx/<m>/kwseq) before the change and recorded in the same Bleve
// batch as the change. When a memory is loaded, a missing or unreadable
// Bleve index, or one whose number differs from the store's, is rebuilt
// from the chunk texts of the engine.ChunkSource. A store without a number
// (data written before numbers existed) is checked by counting: the chunk
// texts against the Bleve documents.

// Bounds of one Bleve batch during a rebuild.
const (
	rebuildBatchDocs  = 1000
	rebuildBatchBytes = 16 << 20
)

// loadKeyword opens the memory's Bleve index and checks it against the
// store, rebuilding it when it is missing, unreadable or stale. It returns
// why it rebuilt, or "". The caller holds mi.mu.
func (m *Manager) loadKeyword(ctx context.Context, mi *memIndex) (string, error) {
	var seq uint64
	has := false
	err := m.store.View(ctx, func(tx engine.Tx) error {
		b, err := tx.GetRaw(kwSeqKey(mi.id))
		if engine.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(b) == 8 {
			seq, has = binary.LittleEndian.Uint64(b), true
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	mi.kwSeq = seq
	kw, err := openKeyword(m.bleveDir(mi.id), m.opts.KeywordAnalyzer, false)
	if err != nil {
		return m.heal(ctx, mi, "the keyword index could not be opened ("+err.Error()+")")
	}
	m.setKeyword(mi, kw)
	applied, recorded := uint64(0), false
	if kw != nil {
		if applied, recorded, err = kw.seq(); err != nil {
			return m.heal(ctx, mi, "the keyword index could not be read ("+err.Error()+")")
		}
	}
	switch {
	case has && kw == nil:
		return m.heal(ctx, mi, "the keyword index is missing")
	case has && !recorded:
		return m.heal(ctx, mi, "the keyword index has no record of its changes")
	case has && applied != seq:
		return m.heal(ctx, mi, fmt.Sprintf("the keyword index is at change %d, the store at %d", applied, seq))
	case has:
		return "", nil
	}
	// No number in the store: compare counts, then start numbering.
	src := m.chunkSource()
	if src == nil {
		return "", nil
	}
	want, err := countTexts(ctx, src, mi.id, kw == nil)
	if err != nil {
		return "", err
	}
	have := 0
	if kw != nil {
		have = int(kw.count())
	}
	if want != have {
		return m.heal(ctx, mi, fmt.Sprintf("the keyword index holds %d chunks, the store %d", have, want))
	}
	if kw == nil {
		return "", nil
	}
	if err := m.store.Update(ctx, func(tx engine.Tx) error { return tx.PutRaw(kwSeqKey(mi.id), encodeU64(1)) }); err != nil {
		return "", err
	}
	mi.kwSeq = 1
	if err := kw.apply(nil, nil, 1); err != nil {
		mi.kwStale = true
		m.log.Error("cannot record the keyword index's sequence number", "memory", mi.id, "err", err)
	}
	return "", nil
}

// countTexts counts the chunks with text; with any it stops at the first.
func countTexts(ctx context.Context, src engine.ChunkSource, mem string, first bool) (int, error) {
	n := 0
	err := src.ScanChunkTexts(ctx, mem, func(_, text string) error {
		if text != "" {
			n++
			if first {
				return engine.ErrStopScan
			}
		}
		return ctx.Err()
	})
	return n, err
}

// heal rebuilds the keyword index during a load. The rebuild is detached
// from the caller's cancellation (the next caller would need it anyway);
// when it fails the memory still loads, with the keyword index marked stale
// so that its next change rebuilds it.
func (m *Manager) heal(ctx context.Context, mi *memIndex, reason string) (string, error) {
	if m.chunkSource() == nil {
		m.log.Error("the keyword index needs a rebuild, but no chunk source is set", "memory", mi.id, "reason", reason)
		return "", nil
	}
	if err := m.rebuildKeyword(context.WithoutCancel(ctx), mi, reason); err != nil {
		m.log.Error("keyword index rebuild failed; keyword search of this memory is incomplete until it succeeds",
			"memory", mi.id, "reason", reason, "err", err)
	}
	return reason, nil
}

// rebuildKeyword replaces the memory's Bleve index with one built from the
// chunk texts. A new sequence number is committed first and recorded only
// in the last batch, so a rebuild cut short is found stale and done again.
// The caller holds mi.mu, so no change runs meanwhile.
func (m *Manager) rebuildKeyword(ctx context.Context, mi *memIndex, reason string) error {
	src := m.chunkSource()
	if src == nil {
		return engine.Errorf(engine.CodeInternal, "no chunk source to rebuild the keyword index from")
	}
	start := time.Now()
	m.setKeyword(mi, nil)
	dir := m.bleveDir(mi.id)
	if err := os.RemoveAll(dir); err != nil {
		mi.kwStale = true
		return err
	}
	seq := mi.kwSeq + 1
	if err := m.store.Update(ctx, func(tx engine.Tx) error { return tx.PutRaw(kwSeqKey(mi.id), encodeU64(seq)) }); err != nil {
		mi.kwStale = true
		return err
	}
	mi.kwSeq = seq
	kw, n, err := m.buildKeyword(ctx, mi, dir, keywordSeqKey, seq)
	if err == nil && kw == nil {
		// No chunk has text: no index, and no number for one to match.
		err = m.store.Update(ctx, func(tx engine.Tx) error { return tx.Delete(kwSeqKey(mi.id)) })
		if err == nil {
			mi.kwSeq = 0
		}
	}
	if err != nil {
		mi.kwStale = true
		return err
	}
	m.setKeyword(mi, kw)
	mi.kwStale = false
	m.log.Warn("keyword index rebuilt from the stored chunk texts", "memory", mi.id, "reason", reason,
		"chunks", n, "took", time.Since(start))
	return nil
}

// buildKeyword builds a Bleve index in dir (empty) from the chunk texts, recording seq under key in its last batch, so a build
// cut short is found unrecorded and done again. It returns nil when no
// chunk has text (and then creates no index). The caller installs it.
func (m *Manager) buildKeyword(ctx context.Context, mi *memIndex, dir string, key []byte, seq uint64) (*keywordIndex, int, error) {
	src := m.chunkSource()
	if src == nil {
		return nil, 0, engine.Errorf(engine.CodeInternal, "no chunk source to rebuild the keyword index from")
	}
	var kw *keywordIndex
	var batch []engine.IndexedChunk
	size, n := 0, 0
	flush := func(final bool) error {
		if len(batch) == 0 && (!final || kw == nil) {
			return nil
		}
		if kw == nil {
			var err error
			if kw, err = openKeyword(dir, m.opts.KeywordAnalyzer, true); err != nil {
				return err
			}
		}
		s := uint64(0)
		if final {
			s = seq
		}
		err := kw.applyAt(batch, nil, key, s)
		batch, size = batch[:0], 0
		return err
	}
	err := src.ScanChunkTexts(ctx, mi.id, func(id, text string) error {
		if text == "" {
			return ctx.Err()
		}
		batch = append(batch, engine.IndexedChunk{ID: id, Text: text})
		size += len(text)
		n++
		if len(batch) >= rebuildBatchDocs || size >= rebuildBatchBytes {
			return flush(false)
		}
		return ctx.Err()
	})
	if err == nil {
		err = flush(true)
	}
	if err != nil {
		if kw != nil {
			kw.close()
		}
		return nil, n, err
	}
	return kw, n, nil
}

// setKeyword installs kw as the memory's Bleve index, closing the previous one.
func (m *Manager) setKeyword(mi *memIndex, kw *keywordIndex) {
	mi.kwMu.Lock()
	defer mi.kwMu.Unlock()
	if mi.kw != nil && mi.kw != kw {
		if err := mi.kw.close(); err != nil {
			m.log.Warn("closing the keyword index failed", "memory", mi.id, "err", err)
		}
	}
	mi.kw = kw
}
