package engine

import "context"

// The pipe engine consumes memories through two small interfaces, so pipes
// and runs work before (and without) the memory engine. The memory engine
// implements both; main.go hands it to NewPipes and NewRunner.

// MemoryLookup answers whether a memory exists, for validating the
// `memory` field of pipes and runs.
type MemoryLookup interface {
	MemoryExists(ctx context.Context, owner, name string) (bool, error)
}

// RAGChunk is one retrieved chunk injected into a run's system prompt. A
// run answers them as its sources when asked (include_sources).
type RAGChunk struct {
	Text    string
	DocName string
	// Memory is the name of the memory the chunk came from.
	Memory string
	// ChunkID identifies the chunk within its memory.
	ChunkID string
	// Score is the retrieval similarity in [0, 1] (see README, "Retrieval
	// and filters").
	Score float64
}

// Retriever finds the chunks of an owner's memories most similar to a query
// (the last user message of a run), best first.
type Retriever interface {
	RetrieveForRun(ctx context.Context, owner string, memories []string, query string) ([]RAGChunk, error)
}

// StoreMemoryLookup is the default MemoryLookup: a memory exists when its
// record memory/<owner>/<name> does. The memory engine owns that record.
type StoreMemoryLookup struct{ Store Store }

// MemoryExists reports whether memory/<owner>/<name> is present.
func (l StoreMemoryLookup) MemoryExists(ctx context.Context, owner, name string) (bool, error) {
	var ok bool
	err := l.Store.View(ctx, func(tx Tx) error {
		var err error
		ok, err = tx.Exists("memory/" + owner + "/" + name)
		return err
	})
	return ok, err
}
