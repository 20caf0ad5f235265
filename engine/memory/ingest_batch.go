package memory

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
)

// Limits of the index writes of one ingestion job: chunks are handed to
// the index in writes of up to this many chunks or bytes of text and
// vectors, not one write per embedding batch.
const (
	indexBatchChunks = 1024
	indexBatchBytes  = 16 << 20
)

// indexBatcher collects a document's embedded chunks, whose records are
// already stored, and adds them to the index in few large writes: each
// index write is a transaction, a graph insertion and a Bleve batch (one
// keyword segment to merge later), so fewer, larger writes cost less CPU.
// A crash between storing records and the index write loses nothing:
// reuseChunks embeds again the stored chunks the index does not hold.
type indexBatcher struct {
	index    engine.SearchIndex
	memoryID string
	pending  []engine.IndexedChunk
	bytes    int
}

// add queues chunks, writing them when the queue is full.
func (b *indexBatcher) add(ctx context.Context, chunks []engine.IndexedChunk) error {
	b.pending = append(b.pending, chunks...)
	for _, c := range chunks {
		b.bytes += len(c.ID) + len(c.Text) + 4*len(c.Vector)
	}
	if len(b.pending) >= indexBatchChunks || b.bytes >= indexBatchBytes {
		return b.flush(ctx)
	}
	return nil
}

// flush writes the queued chunks to the index.
func (b *indexBatcher) flush(ctx context.Context) error {
	if len(b.pending) == 0 {
		return nil
	}
	err := b.index.Add(ctx, b.memoryID, b.pending)
	b.pending, b.bytes = nil, 0
	return err
}
