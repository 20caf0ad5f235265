package index

import (
	"sync"
	"sync/atomic"
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
// keyword index's CPU time (docs/bench-log/2026-12-04.md). Vectors are not buffered:
// Add still stores them and inserts them into the graph before it returns.
//
// The buffer is written to Bleve when it holds kwBufferChunks chunks or
// kwBufferBytes of text (in the background, so the ingestion workers go on
// embedding meanwhile), kwBufferDelay after its first chunk, before any
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
	mu       sync.Mutex
	kw       *keywordIndex // the index the changes are for
	put      []engine.IndexedChunk
	del      []string // removals, after every put (a removal is written at once)
	seq      uint64   // keyword sequence number of the last change buffered
	bytes    int
	timer    *time.Timer
	flushing chan struct{} // not nil while a background write of a full buffer runs; closed when it ends
	failed   bool          // a write failed: the next change rebuilds the index

	write sync.Mutex // held while a batch is written: batches apply in order
}

// bufferKeyword records a change whose sequence number the store holds.
// Texts to index are buffered; a full buffer is written in the background
// (after the previous one, when that is still being written: the caller
// waits for it, which bounds the texts held), removals are written here
// with everything buffered before them. The caller holds mi.mu, so
// changes are buffered in the order of their numbers.
func (m *Manager) bufferKeyword(mi *memIndex, kw *keywordIndex, put []engine.IndexedChunk, del []string, seq uint64) error {
	if seq == 0 {
		return nil
	}
	b := &mi.kwBuf
	b.mu.Lock()
	if b.kw != kw {
		b.clear() // changes for an index since replaced by a rebuild, which read the store
		b.kw = kw
	}
	b.put = append(b.put, put...)
	b.del = append(b.del, del...)
	b.seq = seq
	for _, c := range put {
		b.bytes += len(c.ID) + len(c.Text)
	}
	full := len(b.put) >= kwBufferChunks || b.bytes >= kwBufferBytes
	if len(del) > 0 {
		b.mu.Unlock()
		if !m.writeKeyword(mi) {
			return engine.Errorf(engine.CodeInternal, "cannot update the keyword index")
		}
		return nil
	}
	// A full buffer while the previous one is still being written: wait
	// for that write to end (so at most one buffer waits behind the one
	// being written), then write this one in the background too.
	for full && b.flushing != nil {
		running := b.flushing
		b.mu.Unlock()
		<-running
		b.mu.Lock()
		full = len(b.put) >= kwBufferChunks || b.bytes >= kwBufferBytes
	}
	if full {
		done := make(chan struct{})
		b.flushing = done
		b.mu.Unlock()
		go func() {
			m.writeKeyword(mi)
			b.mu.Lock()
			b.flushing = nil
			b.mu.Unlock()
			close(done)
		}()
		return nil
	}
	if len(b.put) == 0 {
		b.mu.Unlock() // written meanwhile by another write
		return nil
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(kwBufferDelay, func() { m.flushKeyword(mi) })
	}
	b.mu.Unlock()
	return nil
}

// testBatchHook, when set by a test, runs in writeKeyword before a batch is
// written to Bleve, under the same locks.
var testBatchHook atomic.Pointer[func()]

// flushKeyword writes the buffered changes to the Bleve index. A failure
// is logged and leaves the index marked for a rebuild by the next change.
func (m *Manager) flushKeyword(mi *memIndex) { m.writeKeyword(mi) }

// writeKeyword writes what the buffer holds as one Bleve batch recording
// its last sequence number, after any batch being written.
func (m *Manager) writeKeyword(mi *memIndex) bool {
	b := &mi.kwBuf
	b.write.Lock()
	defer b.write.Unlock()
	b.mu.Lock()
	put, del, seq, kw := b.put, b.del, b.seq, b.kw
	b.clear()
	b.mu.Unlock()
	if len(put)+len(del) == 0 || kw == nil {
		return true
	}
	// The read lock: the index is not replaced or closed while the batch
	// is written (batches are ordered by b.write), and Add calls that only
	// need to find the index are not held up by the batch.
	mi.kwMu.RLock()
	defer mi.kwMu.RUnlock()
	if mi.kw != kw {
		return true // replaced or closed meanwhile: its rebuild read the store
	}
	if h := testBatchHook.Load(); h != nil {
		(*h)()
	}
	if err := kw.apply(put, del, seq); err != nil {
		b.mu.Lock()
		b.failed = true
		b.mu.Unlock()
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

// clear empties the buffer and stops its timer. The caller holds b.mu.
func (b *kwBuffer) clear() {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.put, b.del, b.bytes = nil, nil, 0
}
