package engine

import "context"

// RAGChunk is one memory chunk retrieved for the RAG context of a pipe run
// (wire-compat 5.2.4: each chunk is followed by "Source: <DocName>").
type RAGChunk struct {
	Text       string
	DocName    string
	Similarity float64
}

// Retriever is what pipe runs need from memories (implemented by
// engine/memory). Memories are named by the owner's memory names.
type Retriever interface {
	// RetrieveForRun embeds query once per embedding model and returns the
	// top_k chunks of each named memory, merged and ranked best first. A
	// missing memory is a NOT_FOUND error naming it.
	RetrieveForRun(ctx context.Context, owner string, memories []string, query string) ([]RAGChunk, error)
	// MemoryExists reports whether owner has a memory with this name.
	MemoryExists(ctx context.Context, owner, name string) (bool, error)
}
