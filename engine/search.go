package engine

import (
	"context"
	"time"
)

// IndexedChunk is one chunk handed to the search index: its id, its
// (normalised) embedding, and its text for keyword search.
type IndexedChunk struct {
	ID     string
	Vector []float32
	Text   string
}

// ChunkHit is one search result. Score is cosine similarity for vector
// search, BM25 for keyword search, and the fused score for hybrid search.
type ChunkHit struct {
	ID    string
	Score float64
}

// SearchIndex holds the vector and keyword indexes of every memory
// (implemented by index/). Memories are addressed by their internal id.
// Allow, when non-nil, filters candidate chunks (meta filters).
type SearchIndex interface {
	Add(ctx context.Context, memoryID string, chunks []IndexedChunk) error
	Remove(ctx context.Context, memoryID string, chunkIDs []string) error
	DropMemory(ctx context.Context, memoryID string) error
	SearchVector(ctx context.Context, memoryID string, vec []float32, k int, allow func(chunkID string) bool) ([]ChunkHit, error)
	SearchKeyword(ctx context.Context, memoryID string, query string, k int, allow func(chunkID string) bool) ([]ChunkHit, error)
	// HasVectors reports, for each chunk id, whether the index holds a
	// vector for it. The index's copy is the only stored copy of the
	// vectors: interrupted ingestion resumes from it without embedding
	// again.
	HasVectors(ctx context.Context, memoryID string, chunkIDs []string) ([]bool, error)
	// Vectors returns the stored vector of each chunk id (nil for a chunk
	// without one), as the index keeps it: memory packs export them so that
	// an import needs no embedding (docs/memories-and-retrieval.md#memory-packs).
	Vectors(ctx context.Context, memoryID string, chunkIDs []string) ([][]float32, error)
	Close() error
}

// ChunkSource lists the stored text of every chunk of a memory, in chunk id
// order. The memory engine's chunk records are the source of truth for
// chunk texts; a search index that loses its keyword index (a restore from
// a backup, which holds only the store, or a crash before the keyword index
// persisted its last changes) rebuilds it from them. fn may stop the scan
// early by returning ErrStopScan.
type ChunkSource interface {
	ScanChunkTexts(ctx context.Context, memoryID string, fn func(chunkID, text string) error) error
}

// searchStartKey is the context key of WithSearchStart.
type searchStartKey struct{}

// WithSearchStart marks ctx as one search that began at t. A SearchIndex
// in cluster mode reads the store's latest change before each search
// call; within a search so marked, a read that began at or after t
// serves every call (the vector and keyword halves of a hybrid search
// share one), since it already sees every change committed before the
// search began.
func WithSearchStart(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, searchStartKey{}, t)
}

// SearchStart returns the start of the search ctx belongs to
// (WithSearchStart).
func SearchStart(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(searchStartKey{}).(time.Time)
	return t, ok
}
