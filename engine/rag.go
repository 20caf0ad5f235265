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
	// Score is the retrieval similarity in [0, 1] (see
	// docs/memories-and-retrieval.md#retrieval-and-filters).
	Score float64
	// Heading is the chunk's heading path and Section the enclosing part of
	// its section, which the model gets instead of Text in parent-child
	// mode (docs/memories-and-retrieval.md#structure-aware-chunking); empty with size chunking.
	Heading string
	Section string
}

// PromptText is what the RAG prompt shows of c: its Section, else its
// Text, under a "Section: <heading path>" line when it has a heading path.
func (c *RAGChunk) PromptText() string {
	text := c.Text
	if c.Section != "" {
		text = c.Section
	}
	if c.Heading != "" {
		text = "Section: " + c.Heading + "\n" + text
	}
	return text
}

// Retriever finds the chunks of an owner's memories most similar to a query
// (the last user message of a run), best first, honouring each memory's
// min_score and rerank settings.
type Retriever interface {
	RetrieveForRun(ctx context.Context, owner string, memories []MemoryRef, query string) ([]RAGChunk, error)
}

// RAGContext is what retrieval hands to a run's system prompt: the chunks,
// and NoMatch when a score threshold left none (docs/memories-and-retrieval.md#score-thresholds).
type RAGContext struct {
	Chunks  []RAGChunk
	NoMatch bool
}

// hasMinScore reports whether any memory sets a score threshold.
func hasMinScore(refs []MemoryRef) bool {
	for _, m := range refs {
		if m.MinScore != nil {
			return true
		}
	}
	return false
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
