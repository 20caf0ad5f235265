package memory

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// countingIndex records the size of every Add call.
type countingIndex struct {
	engine.SearchIndex
	mu   sync.Mutex
	adds []int
}

func (c *countingIndex) Add(ctx context.Context, memoryID string, chunks []engine.IndexedChunk) error {
	c.mu.Lock()
	c.adds = append(c.adds, len(chunks))
	c.mu.Unlock()
	return c.SearchIndex.Add(ctx, memoryID, chunks)
}

func (c *countingIndex) take() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.adds
	c.adds = nil
	return out
}

// TestIngestAddsChunksInLargeWrites: a document embedded in many small
// batches reaches the index in writes of up to indexBatchChunks chunks,
// not one write per embedding batch, and every chunk is searchable.
func TestIngestAddsChunksInLargeWrites(t *testing.T) {
	var idx *countingIndex
	s := newTestService(t, func(c *Config) {
		idx = &countingIndex{SearchIndex: c.Index}
		c.Index = idx
		c.BatchChars = 1000 // about 5 chunks per embedding batch
	})
	ctx := context.Background()
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "hearth:hash-embed", ChunkSize: ptr(200), ChunkOverlap: ptr(0)}); err != nil {
		t.Fatal(err)
	}
	small := ingestDoc(t, s, "ann", "kb", "small.txt", synthText(1, 40<<10))
	if got := idx.take(); len(got) != 1 || got[0] != small.Live.Chunks {
		t.Fatalf("index writes of a %d-chunk document: %v, want one", small.Live.Chunks, got)
	}
	text := synthText(2, 240<<10)
	large := ingestDoc(t, s, "ann", "kb", "large.txt", text)
	got := idx.take()
	if large.Live.Chunks <= indexBatchChunks || len(got) != 2 || got[0] < indexBatchChunks || got[0]+got[1] != large.Live.Chunks {
		t.Fatalf("index writes of a %d-chunk document: %v, want two, the first of at least %d", large.Live.Chunks, got, indexBatchChunks)
	}
	res, err := s.Retrieve(ctx, "ann", RetrieveRequest{Query: text[500:560], Memories: []MemoryQuery{{Name: "kb"}}, TopK: 3})
	if err != nil || len(res) == 0 {
		t.Fatalf("retrieve: %v %v", res, err)
	}
}

func TestDefaultWorkers(t *testing.T) {
	s := newTestService(t, nil)
	if want := max(2, runtime.GOMAXPROCS(0)); s.Workers() != want || DefaultWorkers() != want {
		t.Fatalf("workers %d, default %d, want %d", s.Workers(), DefaultWorkers(), want)
	}
	if s := newTestService(t, func(c *Config) { c.Workers = 1 }); s.Workers() != 1 {
		t.Fatalf("workers set to 1: %d", s.Workers())
	}
}
