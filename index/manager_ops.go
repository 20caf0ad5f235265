package index

import (
	"context"
	"fmt"

	"github.com/hearth-dev/hearth/engine"
)

// Add implements engine.SearchIndex. Vectors are normalised, written to the
// store (the only stored copy of them, the source for rebuilds) and
// inserted into the graph; texts go to the keyword index. A chunk with an empty Vector is
// keyword-only (the hearth:bm25 model). Re-adding an id replaces it.
//
// Calls on one memory that overlap are applied together (see addQueue).
func (m *Manager) Add(ctx context.Context, memoryID string, chunks []engine.IndexedChunk) error {
	mi, err := m.mem(ctx, memoryID)
	if err != nil {
		return err
	}
	return mi.adds.do(ctx, chunks, func(ctx context.Context, chunks []engine.IndexedChunk) error {
		return m.add(ctx, mi, chunks)
	})
}

// add is Add for one call or one group of calls.
func (m *Manager) add(ctx context.Context, mi *memIndex, chunks []engine.IndexedChunk) error {
	mi.mu.Lock()
	defer mi.mu.Unlock()
	if mi.dropped {
		return errDropped
	}
	dim := mi.vec.dim()
	type prepared struct {
		id string
		v  []float32
	}
	var vecs []prepared
	var noVec []string
	var kwPut []engine.IndexedChunk
	var kwDel []string
	for i, c := range chunks {
		if c.ID == "" {
			return engine.FieldError(fmt.Sprintf("chunks[%d].id", i), "is required")
		}
		if len(c.Vector) == 0 {
			// In cluster mode another node may have added it: always delete.
			if m.shared || mi.vec.has(c.ID) {
				noVec = append(noVec, c.ID)
			}
		} else {
			v, err := prepare(c.Vector, dim)
			if err != nil {
				return engine.FieldError(fmt.Sprintf("chunks[%d].vector", i), "%s", engine.ErrorCode(err)+": "+errMessage(err))
			}
			dim = len(v)
			vecs = append(vecs, prepared{c.ID, v})
		}
		if c.Text != "" {
			kwPut = append(kwPut, c)
		} else {
			kwDel = append(kwDel, c.ID)
		}
	}
	// Persist first: once committed, a crash loses nothing (the next load
	// replays these records into the graph).
	recs := make(map[string][]float32, len(vecs))
	order := make([]string, 0, len(vecs))
	for _, p := range vecs {
		if _, dup := recs[p.id]; !dup {
			order = append(order, p.id)
		}
		recs[p.id] = p.v
	}
	if m.shared {
		return m.writeShared(ctx, mi, order, recs, noVec, kwPut, kwDel)
	}
	kw, kwSeq, err := m.prepareKeyword(ctx, mi, len(kwPut)+len(kwDel) > 0, len(kwPut) > 0)
	if err != nil {
		return err
	}
	if err := m.writeVectors(ctx, mi, order, recs, noVec, kwSeq); err != nil {
		return err
	}
	batch := make([][]float32, len(order))
	for i, id := range order {
		batch[i] = recs[id]
	}
	mi.vec.insertNormalized(order, batch)
	for _, id := range noVec {
		mi.vec.Delete(id)
	}
	if len(order)+len(noVec) > 0 {
		mi.dirty = true
	}
	return m.bufferKeyword(mi, kw, kwPut, kwDel, kwSeq)
}

func errMessage(err error) string {
	if e, ok := err.(*engine.Error); ok {
		return e.Message
	}
	return err.Error()
}

// Remove implements engine.SearchIndex; unknown ids are ignored.
func (m *Manager) Remove(ctx context.Context, memoryID string, chunkIDs []string) error {
	mi, err := m.mem(ctx, memoryID)
	if err != nil {
		return err
	}
	mi.mu.Lock()
	defer mi.mu.Unlock()
	if mi.dropped {
		return errDropped
	}
	var present []string
	for _, id := range chunkIDs {
		if m.shared || mi.vec.has(id) {
			present = append(present, id)
		}
	}
	if m.shared {
		return m.writeShared(ctx, mi, nil, nil, present, nil, chunkIDs)
	}
	kw, kwSeq, err := m.prepareKeyword(ctx, mi, len(chunkIDs) > 0, false)
	if err != nil {
		return err
	}
	if err := m.writeVectors(ctx, mi, nil, nil, present, kwSeq); err != nil {
		return err
	}
	for _, id := range present {
		mi.vec.Delete(id)
	}
	if len(present) > 0 {
		mi.dirty = true
	}
	return m.bufferKeyword(mi, kw, nil, chunkIDs, kwSeq)
}

// prepareKeyword readies the Bleve index for a change (creating it when
// create is set, rebuilding it first when it is stale) and picks the
// change's keyword sequence number, or 0 when there is nothing to change.
// The number is committed to the store with the change's first vector
// transaction and then recorded in the Bleve batch, so a change the Bleve
// index lost (a kill after the store commit, before Bleve persisted the
// batch; a failed write) leaves the two numbers different, and the index
// is rebuilt from the chunk texts (see loadKeyword). The caller holds mi.mu.
func (m *Manager) prepareKeyword(ctx context.Context, mi *memIndex, work, create bool) (*keywordIndex, uint64, error) {
	if !work {
		return nil, 0, nil
	}
	kw, err := m.keyword(mi, create)
	if err != nil || kw == nil {
		return nil, 0, err
	}
	if mi.keywordFailed() {
		mi.kwStale = true
	}
	if mi.kwStale {
		if err := m.rebuildKeyword(ctx, mi, "an earlier change could not be applied"); err != nil {
			return nil, 0, engine.Wrap(err, engine.CodeInternal, "cannot rebuild the keyword index")
		}
		if kw, err = m.keyword(mi, create); err != nil || kw == nil {
			return nil, 0, err
		}
	}
	return kw, mi.kwSeq + 1, nil
}

// writeVectors commits vector puts and deletes in transactions of bounded
// size, each one bumping the memory's sequence number; kwSeq, when not 0,
// is committed with the first of them (alone when there is no vector
// change).
func (m *Manager) writeVectors(ctx context.Context, mi *memIndex, order []string, recs map[string][]float32, del []string, kwSeq uint64) error {
	if len(order)+len(del) == 0 {
		if kwSeq == 0 {
			return nil
		}
		if err := m.store.Update(ctx, func(tx engine.Tx) error { return tx.PutRaw(kwSeqKey(mi.id), encodeU64(kwSeq)) }); err != nil {
			return engine.Wrap(err, engine.CodeInternal, "cannot update the keyword index")
		}
		mi.kwSeq = kwSeq
		return nil
	}
	for len(order)+len(del) > 0 {
		seq := mi.seq + 1
		bytes, ops := 0, 0
		err := m.store.Update(ctx, func(tx engine.Tx) error {
			if err := engine.CheckWrite(ctx, tx); err != nil { // the ingestion job's lease (engine.WithWriteCheck)
				return err
			}
			if kwSeq != 0 {
				if err := tx.PutRaw(kwSeqKey(mi.id), encodeU64(kwSeq)); err != nil {
					return err
				}
			}
			for ; ops < len(order) && bytes < maxTxnBytes && ops < maxTxnOps; ops++ {
				b := encodeVec(seq, recs[order[ops]])
				bytes += len(b)
				if err := tx.PutRaw(vecKey(mi.id, order[ops]), b); err != nil {
					return err
				}
			}
			for d := 0; d < len(del) && ops < maxTxnOps; d++ {
				if err := tx.Delete(vecKey(mi.id, del[d])); err != nil {
					return err
				}
				ops++
			}
			return tx.PutRaw(seqKey(mi.id), encodeU64(seq))
		})
		if err != nil {
			return engine.Wrap(err, engine.CodeInternal, "cannot store vectors")
		}
		mi.seq = seq
		if kwSeq != 0 {
			mi.kwSeq, kwSeq = kwSeq, 0
		}
		n := min(ops, len(order))
		order = order[n:]
		del = del[ops-n:]
	}
	return nil
}

// SearchVector implements engine.SearchIndex: exact below the threshold,
// the graph above it. Scores are cosine similarities. In cluster mode it
// first applies the changes other nodes committed (fresh).
func (m *Manager) SearchVector(ctx context.Context, memoryID string, vec []float32, k int, allow func(chunkID string) bool) ([]engine.ChunkHit, error) {
	mi, err := m.mem(ctx, memoryID)
	if err != nil {
		return nil, err
	}
	if m.shared {
		if err := m.fresh(ctx, mi); err != nil {
			return nil, err
		}
	}
	var hits []engine.ChunkHit
	if mi.vec.Len() < m.opts.ExactThreshold {
		hits, err = mi.vec.SearchExact(vec, k, allow)
	} else {
		hits, err = mi.vec.Search(vec, k, allow)
	}
	if err != nil {
		return nil, engine.FieldError("vector", "%s", errMessage(err))
	}
	return hits, nil
}

// SearchKeyword implements engine.SearchIndex with BM25 scores. In
// cluster mode it first applies the changes other nodes committed (fresh).
func (m *Manager) SearchKeyword(ctx context.Context, memoryID string, query string, k int, allow func(chunkID string) bool) ([]engine.ChunkHit, error) {
	mi, err := m.mem(ctx, memoryID)
	if err != nil {
		return nil, err
	}
	if m.shared {
		if err := m.fresh(ctx, mi); err != nil {
			return nil, err
		}
	}
	m.flushKeyword(mi)
	kw, err := m.keyword(mi, false)
	if err != nil || kw == nil {
		return nil, err
	}
	hits, err := kw.search(ctx, query, k, allow)
	if err != nil {
		return nil, engine.Wrap(err, engine.CodeInternal, "keyword search failed")
	}
	return hits, nil
}

// HasVectors implements engine.SearchIndex: whether each chunk has a live
// vector. Like every call it loads the memory on first use; in cluster mode
// it first applies the changes other nodes committed.
func (m *Manager) HasVectors(ctx context.Context, memoryID string, chunkIDs []string) ([]bool, error) {
	mi, err := m.mem(ctx, memoryID)
	if err != nil {
		return nil, err
	}
	if m.shared {
		// Asked when an ingestion resumes, maybe one another node began.
		m.refresh(ctx, mi)
	}
	out := make([]bool, len(chunkIDs))
	for i, id := range chunkIDs {
		out[i] = mi.vec.has(id)
	}
	return out, nil
}

// DropMemory implements engine.SearchIndex: it removes the graph, the
// stored vectors and snapshots, and the Bleve directory. A drop interrupted
// by a crash is finished on the next use of the memory id.
func (m *Manager) DropMemory(ctx context.Context, memoryID string) error {
	mi, err := m.mem(ctx, memoryID)
	if err != nil {
		return err
	}
	mi.mu.Lock()
	defer mi.mu.Unlock()
	mi.dropped = true
	mi.discardKeyword()
	mi.kwMu.Lock()
	if mi.kw != nil {
		mi.kw.close()
		mi.kw = nil
	}
	mi.kwMu.Unlock()
	err = m.drop(ctx, memoryID)
	// Only now may the id be loaded afresh: until here, concurrent writers
	// find the dropped state and fail instead of writing into a dying memory.
	m.mu.Lock()
	if m.mems[memoryID] == mi {
		delete(m.mems, memoryID)
	}
	m.mu.Unlock()
	return err
}
