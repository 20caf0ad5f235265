package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// BenchmarkManagerAdd measures Manager.Add on Badger in the embedded mode:
// batches of 32 chunks (128 dimensions, with text) into one memory, the
// shape of an ingestion. It reports chunks/s; the cost of the change log
// in cluster mode is measured by BenchmarkClusterLag.
func BenchmarkManagerAdd(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	store := blob.New(blob.Options{Dir: filepath.Join(dir, "data")})
	if err := store.Open(); err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	m := NewManager(store, filepath.Join(dir, "bleve"), Options{SnapshotInterval: -1, Logger: quietLogger()})
	if err := m.Open(ctx); err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	vs := clustered(4096, 128, 64, 3)
	const batch = 32
	n := 0
	for b.Loop() {
		chunks := make([]engine.IndexedChunk, batch)
		for i := range chunks {
			chunks[i] = engine.IndexedChunk{ID: chunkID(n), Vector: vs[n%len(vs)], Text: fmt.Sprintf("chunk %d of the benchmark memory", n)}
			n++
		}
		if err := m.Add(ctx, "bench", chunks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}
