package index

import (
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Limits of the keyword buffer of one memory (see kwBuffer).
const (
	kwBufferChunks = 2048
	kwBufferBytes  = 32 << 20
	kwBufferDelay  = time.Second
)

// kwBuffer holds the chunk texts of a memory's recent Add calls until they
// go to the Bleve index in one batch. Each Bleve batch makes a segment that
// Bleve later merges, and ingestion adds a document in many small calls
// (one per embedding batch), so batching the texts saves most of the
// keyword index's CPU time (README, Benchmarks). Vectors are not buffered:
// Add still stores them and inserts them into the graph before it returns.
//
// The buffer is written to Bleve when it holds kwBufferChunks chunks or
// kwBufferBytes of text, kwBufferDelay after its first chunk, before any
// keyword search, count or removal on the memory, and on Flush, Maintain
// and Close. A crash loses what it holds; the store's keyword sequence
// number (committed by Add) is then ahead of the Bleve index's, and the
// next load rebuilds the keyword index from the chunk texts (loadKeyword),
// as it does when Bleve had not persisted its last batches.
//
// It exists only in embedded mode and in this process's memory. In cluster
// mode Add writes the change log, and every node's replica, this one's
// included, applies the log's entries directly, so there is nothing to
// buffer.
type kwBuffer struct {
	mu     sync.Mutex
	kw     *keywordIndex // the index the texts are for
	put    []engine.IndexedChunk
	seq    uint64 // keyword sequence number of the last change buffered
	bytes  int
	timer  *time.Timer
	failed bool // a write failed: the next change rebuilds the index
}

// bufferKeyword records a change whose sequence number the store holds:
// texts to index are buffered, deletions are written at once with
// everything buffered before them. The caller holds mi.mu.
func (m *Manager) bufferKeyword(mi *memIndex, kw *keywordIndex, put []engine.IndexedChunk, del []string, seq uint64) error {
	if seq == 0 {
		return nil
	}
	b := &mi.kwBuf
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.kw != kw {
		b.clear() // texts for an index since replaced by a rebuild, which read them from the store
		b.kw = kw
	}
	b.put = append(b.put, put...)
	b.seq = seq
	for _, c := range put {
		b.bytes += len(c.ID) + len(c.Text)
	}
	if len(del) > 0 || len(b.put) >= kwBufferChunks || b.bytes >= kwBufferBytes {
		if !m.writeKeyword(mi, del) {
			return engine.Errorf(engine.CodeInternal, "cannot update the keyword index")
		}
		return nil
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(kwBufferDelay, func() { m.flushKeyword(mi) })
	}
	return nil
}

// flushKeyword writes the buffered texts to the Bleve index. A failure is
// logged and leaves the index marked for a rebuild by the next change.
func (m *Manager) flushKeyword(mi *memIndex) {
	mi.kwBuf.mu.Lock()
	defer mi.kwBuf.mu.Unlock()
	m.writeKeyword(mi, nil)
}

// writeKeyword writes the buffer and del in one Bleve batch recording the
// last sequence number. The caller holds mi.kwBuf.mu.
func (m *Manager) writeKeyword(mi *memIndex, del []string) bool {
	b := &mi.kwBuf
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	put, seq, kw := b.put, b.seq, b.kw
	b.put, b.bytes = nil, 0
	if len(put)+len(del) == 0 || kw == nil {
		return true
	}
	mi.kwMu.Lock()
	defer mi.kwMu.Unlock()
	if mi.kw != kw {
		return true // replaced or closed meanwhile: its rebuild read the store
	}
	if err := kw.apply(put, del, seq); err != nil {
		b.failed = true
		m.log.Error("cannot update the keyword index; it will be rebuilt", "memory", mi.id, "err", err)
		return false
	}
	return true
}

// keywordFailed reports, once, that a buffered write failed. The caller
// holds mi.mu.
func (mi *memIndex) keywordFailed() bool {
	mi.kwBuf.mu.Lock()
	defer mi.kwBuf.mu.Unlock()
	f := mi.kwBuf.failed
	mi.kwBuf.failed = false
	return f
}

// discardKeyword drops the buffer (the memory is dropped).
func (mi *memIndex) discardKeyword() {
	mi.kwBuf.mu.Lock()
	defer mi.kwBuf.mu.Unlock()
	mi.kwBuf.clear()
	mi.kwBuf.kw = nil
}

func (b *kwBuffer) clear() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.put, b.bytes = nil, 0
}
