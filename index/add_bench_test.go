package index

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index/internal/clustertest"
)

// benchBatch is a batch of 32 chunks (128 dimensions, with text), the
// shape of an ingestion.
func benchBatch(vs [][]float32, n int) []engine.IndexedChunk {
	chunks := make([]engine.IndexedChunk, 32)
	for i := range chunks {
		chunks[i] = engine.IndexedChunk{ID: chunkID(n + i), Vector: vs[(n+i)%len(vs)], Text: fmt.Sprintf("chunk %d of the benchmark memory", n+i)}
	}
	return chunks
}

func benchBadger(b *testing.B) engine.Store {
	store := blob.New(blob.Options{Dir: filepath.Join(b.TempDir(), "data")})
	if err := store.Open(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	return store
}

func benchManager(b *testing.B, store engine.Store, c engine.Cluster) *Manager {
	m := NewManager(store, b.TempDir(), Options{SnapshotInterval: -1, Logger: quietLogger(), Cluster: c})
	if err := m.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	return m
}

// BenchmarkManagerAdd measures Manager.Add on Badger, batches of 32 chunks
// into one memory: embedded (engine.Local) and in cluster mode on one node
// (the change log entry and the seq read in each transaction).
func BenchmarkManagerAdd(b *testing.B) {
	vs := clustered(4096, 128, 64, 3)
	for _, mode := range []string{"embedded", "cluster"} {
		b.Run(mode, func(b *testing.B) {
			store := benchBadger(b)
			var c engine.Cluster
			if mode == "cluster" {
				n := clustertest.NewHub().Node("a", store)
				store, c = n.Store(), n
			}
			m := benchManager(b, store, c)
			n := 0
			for b.Loop() {
				if err := m.Add(context.Background(), "bench", benchBatch(vs, n)); err != nil {
					b.Fatal(err)
				}
				n += 32
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// BenchmarkClusterLag measures how long after node A's Add returns node B
// finds the new chunks by vector search (notification, catch-up from the
// change log, graph insert), over Badger with the in-process cluster
// double. Reported: lag p50 and p99 in milliseconds.
func BenchmarkClusterLag(b *testing.B) {
	ctx := context.Background()
	store := benchBadger(b)
	hub := clustertest.NewHub()
	na, nb := hub.Node("a", store), hub.Node("b", store)
	a := benchManager(b, na.Store(), na)
	bm := benchManager(b, nb.Store(), nb)
	b.Cleanup(nb.Leave)
	vs := clustered(4096, 128, 64, 5)
	if err := a.Add(ctx, "bench", benchBatch(vs, 0)); err != nil {
		b.Fatal(err)
	}
	if _, err := bm.SearchVector(ctx, "bench", vs[0], 1, nil); err != nil {
		b.Fatal(err)
	}
	var lags []time.Duration
	n := 32
	for b.Loop() {
		batch := benchBatch(vs, n)
		n += 32
		if err := a.Add(ctx, "bench", batch); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		last := batch[len(batch)-1]
		for {
			hits, err := bm.SearchVector(ctx, "bench", last.Vector, 1, func(id string) bool { return id == last.ID })
			if err != nil {
				b.Fatal(err)
			}
			if len(hits) == 1 {
				break
			}
			if time.Since(start) > 10*time.Second {
				b.Fatal("node B never saw the batch")
			}
			time.Sleep(50 * time.Microsecond)
		}
		lags = append(lags, time.Since(start))
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	ms := func(q float64) float64 { return float64(lags[int(q*float64(len(lags)-1))]) / 1e6 }
	b.ReportMetric(ms(0.5), "lag-p50-ms")
	b.ReportMetric(ms(0.99), "lag-p99-ms")
}
