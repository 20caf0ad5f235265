package engine

import "context"

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
	Close() error
}
