package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"time"

	coder "github.com/coder/hnsw"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index"
)

// retrievalCase is one dataset size and dimension.
type retrievalCase struct {
	N, Dim int
	Coder  bool // also measure coder/hnsw v0.6.1
	Reopen bool // measure reopening a data dir holding N vectors
}

// RetrievalResult is one row of the retrieval table.
type RetrievalResult struct {
	Index        string  `json:"index"`
	N            int     `json:"n"`
	Dim          int     `json:"dim"`
	BuildSeconds float64 `json:"build_s"`
	P50us        float64 `json:"p50_us"`
	P99us        float64 `json:"p99_us"`
	Recall10     float64 `json:"recall_at_10"`
	BytesPerVec  float64 `json:"bytes_per_vector,omitempty"`
	ReopenSecs   float64 `json:"reopen_s,omitempty"`
}

func clustered(n, dim int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 99))
	clusters := max(50, n/200)
	centres := make([][]float32, clusters)
	for i := range centres {
		c := make([]float32, dim)
		for j := range c {
			c[j] = float32(r.NormFloat64())
		}
		centres[i] = c
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(clusters)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + 1.2*float32(r.NormFloat64())
		}
		normalize(v)
		out[i] = v
	}
	return out
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

func id(i int) string { return fmt.Sprintf("c%07d", i) }

// timeQueries runs every query once and returns p50, p99 (µs) and results.
func timeQueries(qs [][]float32, search func([]float32) []string) (p50, p99 float64, res [][]string) {
	lat := make([]float64, len(qs))
	res = make([][]string, len(qs))
	for i, q := range qs {
		t := time.Now()
		res[i] = search(q)
		lat[i] = float64(time.Since(t).Nanoseconds()) / 1e3
	}
	sort.Float64s(lat)
	return percentile(lat, 50), percentile(lat, 99), res
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func recall(got, want [][]string) float64 {
	hit, total := 0, 0
	for i := range want {
		set := map[string]bool{}
		for _, x := range want[i] {
			set[x] = true
		}
		for _, x := range got[i] {
			if set[x] {
				hit++
			}
		}
		total += len(want[i])
	}
	return float64(hit) / float64(total)
}

func hitIDs(h []engine.ChunkHit) []string {
	out := make([]string, len(h))
	for i, x := range h {
		out[i] = x.ID
	}
	return out
}

// runRetrieval measures exact search, our HNSW and coder/hnsw on one case.
func runRetrieval(c retrievalCase, queries int, logf func(string, ...any)) []RetrievalResult {
	logf("retrieval: generating %d x %d vectors", c.N, c.Dim)
	all := clustered(c.N+queries, c.Dim, uint64(c.N+c.Dim))
	base, qs := all[:c.N], all[c.N:]
	var out []RetrievalResult

	flat := index.NewFlat()
	t := time.Now()
	for i, v := range base {
		flat.Add(id(i), v)
	}
	flatBuild := time.Since(t).Seconds()
	p50, p99, truth := timeQueries(qs, func(q []float32) []string { h, _ := flat.Search(q, 10, nil); return hitIDs(h) })
	out = append(out, RetrievalResult{Index: "exact", N: c.N, Dim: c.Dim, BuildSeconds: flatBuild, P50us: p50, P99us: p99, Recall10: 1,
		BytesPerVec: float64(c.Dim * 4)})
	flat = nil

	logf("retrieval: building our HNSW on %d x %d", c.N, c.Dim)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h := index.NewHNSW(index.HNSWConfig{})
	t = time.Now()
	for i, v := range base {
		h.Add(id(i), v)
	}
	build := time.Since(t).Seconds()
	p50, p99, got := timeQueries(qs, func(q []float32) []string { r, _ := h.Search(q, 10, nil); return hitIDs(r) })
	out = append(out, RetrievalResult{Index: "hearth-hnsw", N: c.N, Dim: c.Dim, BuildSeconds: build, P50us: p50, P99us: p99,
		Recall10: recall(got, truth), BytesPerVec: float64(h.Bytes()) / float64(c.N)})

	if c.Reopen {
		out[len(out)-1].ReopenSecs = measureReopen(base, logf)
	}
	h = nil

	if c.Coder {
		logf("retrieval: building coder/hnsw v0.6.1 on %d x %d", c.N, c.Dim)
		g := coder.NewGraph[string]()
		g.Distance = coder.CosineDistance
		g.M, g.EfSearch = 16, 128
		t = time.Now()
		for i, v := range base {
			g.Add(coder.MakeNode(id(i), v))
		}
		build = time.Since(t).Seconds()
		p50, p99, got = timeQueries(qs, func(q []float32) []string {
			nodes := g.Search(q, 10)
			ids := make([]string, len(nodes))
			for i, n := range nodes {
				ids[i] = n.Key
			}
			return ids
		})
		out = append(out, RetrievalResult{Index: "coder/hnsw v0.6.1", N: c.N, Dim: c.Dim, BuildSeconds: build, P50us: p50, P99us: p99,
			Recall10: recall(got, truth)})
	}
	return out
}

// measureReopen stores the vectors through index.Manager on a Badger data
// dir, closes it, and times reopening until the first search answers.
func measureReopen(base [][]float32, logf func(string, ...any)) float64 {
	dir, err := os.MkdirTemp("", "hearthbench-reopen-")
	if err != nil {
		return -1
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	open := func() (*blob.Store, *index.Manager) {
		s := blob.New(blob.Options{Dir: dir + "/db"})
		if err := s.Open(); err != nil {
			panic(err)
		}
		m := index.NewManager(s, dir+"/bleve", index.Options{SnapshotInterval: -1})
		if err := m.Open(ctx); err != nil {
			panic(err)
		}
		return s, m
	}
	logf("retrieval: writing %d vectors to a data dir for the reopen test", len(base))
	s, m := open()
	const batch = 2000
	for i := 0; i < len(base); i += batch {
		chunks := make([]engine.IndexedChunk, 0, batch)
		for j := i; j < min(i+batch, len(base)); j++ {
			chunks = append(chunks, engine.IndexedChunk{ID: id(j), Vector: base[j]})
		}
		if err := m.Add(ctx, "bench", chunks); err != nil {
			panic(err)
		}
	}
	m.Close()
	s.Close()
	t := time.Now()
	s, m = open()
	if _, err := m.SearchVector(ctx, "bench", base[0], 10, nil); err != nil {
		panic(err)
	}
	secs := time.Since(t).Seconds()
	m.Close()
	s.Close()
	return secs
}

func ln(x float64) float64 { return math.Log(x) }
