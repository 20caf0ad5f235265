package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	coder "github.com/coder/hnsw"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/rank"
	"github.com/hearth-dev/hearth/index"
)

// retrievalCase is one dataset: its vectors, and which contenders run.
type retrievalCase struct {
	Data    string // "synthetic", or the name of a vector file
	N, Dim  int
	EfC     int  // our HNSW's efConstruction; 0 = the default (200)
	Coder   bool // also measure coder/hnsw v0.6.1
	Reopen  bool // measure reopening the data dir
	Serial  bool // also build with one worker (the parallel build's reference)
	Keyword bool // also BM25 and hybrid on N chunks of generated text
	vectors [][]float32
}

// RetrievalResult is one row of the retrieval table.
type RetrievalResult struct {
	Data         string  `json:"data"`
	Index        string  `json:"index"`
	N            int     `json:"n"`
	Dim          int     `json:"dim"`
	EfC          int     `json:"ef_construction,omitempty"`
	Workers      int     `json:"build_workers,omitempty"`
	BuildSeconds float64 `json:"build_s"`
	P50us        float64 `json:"p50_us"`
	P99us        float64 `json:"p99_us"`
	Recall10     float64 `json:"recall_at_10"`
	BytesPerVec  float64 `json:"bytes_per_vector,omitempty"`
	ReopenSecs   float64 `json:"reopen_s,omitempty"`
	Queries      int     `json:"queries"`
	// Computed names the figures of the row that are not measured: the
	// exact row's recall (it is the reference itself) and hearth-hnsw's
	// bytes per vector (the index's estimate from its slice capacities).
	Computed []string `json:"computed,omitempty"`
	// ReopenNote says why a reopen was measured but not reported: it did
	// not load the snapshot (so it timed a rebuild, not a reopen).
	ReopenNote string `json:"reopen_note,omitempty"`
}

// isComputed reports whether the row's figure (its JSON name) is computed.
func (r RetrievalResult) isComputed(figure string) bool {
	return slices.Contains(r.Computed, figure)
}

// KeywordResult is one row of the keyword table: BM25 alone and hybrid
// (vector + BM25 fused by rank.FuseRRF, as the memory engine does) on N
// chunks of generated text.
type KeywordResult struct {
	N            int     `json:"n"`
	TextMB       float64 `json:"text_mb"`
	BuildSeconds float64 `json:"build_s"`
	BM25P50us    float64 `json:"bm25_p50_us"`
	BM25P99us    float64 `json:"bm25_p99_us"`
	VecP50us     float64 `json:"vector_p50_us"`
	HybridP50us  float64 `json:"hybrid_p50_us"`
	HybridP99us  float64 `json:"hybrid_p99_us"`
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
	flat := make([]float32, n*dim)
	for i := range out {
		c := centres[r.IntN(clusters)]
		v := flat[i*dim : (i+1)*dim : (i+1)*dim]
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
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

func id(i int) string { return fmt.Sprintf("c%07d", i) }

// timeQueries runs every query once, in order, and returns p50, p99 (µs)
// and the results.
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

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// runRetrieval measures exact search, our HNSW (through index.Manager on a
// Badger data dir, as Hearth holds vectors) and coder/hnsw on one case.
func runRetrieval(c retrievalCase, queries int, logf func(string, ...any)) ([]RetrievalResult, *KeywordResult, error) {
	all := c.vectors
	if all == nil {
		logf("retrieval: generating %d x %d vectors", c.N, c.Dim)
		all = clustered(c.N+queries, c.Dim, uint64(c.N+c.Dim))
	}
	base, qs := all[:c.N], all[c.N:]
	ids := make([]string, len(base))
	for i := range ids {
		ids[i] = id(i)
	}
	var out []RetrievalResult
	row := func(index string) RetrievalResult {
		return RetrievalResult{Data: c.Data, Index: index, N: c.N, Dim: c.Dim, Queries: len(qs)}
	}

	logf("retrieval: exact search on %d x %d", c.N, c.Dim)
	heap := heapInUse()
	flat := index.NewFlat()
	t := time.Now()
	if err := flat.AddBatch(ids, base); err != nil {
		return nil, nil, err
	}
	r := row("exact")
	r.BuildSeconds = time.Since(t).Seconds()
	// Measured: what the index added to the live heap (its copy of the
	// vectors and the ids' slots).
	r.BytesPerVec = float64(heapInUse()-heap) / float64(c.N)
	// The exact results are the truth the other rows are held against.
	r.Recall10, r.Computed = 1, []string{"recall_at_10"}
	truth := exactTruth(flat, qs, &r)
	out = append(out, r)
	flat = nil
	runtime.GC()

	efc := c.EfC
	if efc == 0 {
		efc = 200
	}
	workers := []int{runtime.GOMAXPROCS(0)}
	if c.Serial && workers[0] > 1 {
		workers = append(workers, 1)
	}
	var kw *KeywordResult
	for _, w := range workers {
		logf("retrieval: building our HNSW on %d x %d (efConstruction %d, %d workers)", c.N, c.Dim, efc, w)
		r, k, err := runOurs(c, efc, w, ids, base, qs, truth, w == workers[0] && c.Keyword, logf)
		if err != nil {
			return nil, nil, err
		}
		r.Data, r.Queries = c.Data, len(qs)
		out = append(out, r)
		if k != nil {
			kw = k
		}
		runtime.GC()
	}

	if c.Coder {
		logf("retrieval: building coder/hnsw v0.6.1 on %d x %d", c.N, c.Dim)
		g := coder.NewGraph[string]()
		g.Distance = coder.CosineDistance
		g.M, g.EfSearch = 16, 128
		t = time.Now()
		for i, v := range base {
			g.Add(coder.MakeNode(ids[i], v))
		}
		r := row("coder/hnsw v0.6.1")
		r.BuildSeconds = time.Since(t).Seconds()
		var got [][]string
		r.P50us, r.P99us, got = timeQueries(qs, func(q []float32) []string {
			nodes := g.Search(q, 10)
			ids := make([]string, len(nodes))
			for i, n := range nodes {
				ids[i] = n.Key
			}
			return ids
		})
		r.Recall10 = recall(got, truth)
		out = append(out, r)
	}
	return out, kw, nil
}

// exactTruth returns the exact top 10 of every query and times the scans.
// Above 40M floats a scan takes tens of milliseconds: 30 queries are timed
// one by one and the rest computed on every core.
func exactTruth(flat *index.Flat, qs [][]float32, r *RetrievalResult) [][]string {
	search := func(q []float32) []string { h, _ := flat.Search(q, 10, nil); return hitIDs(h) }
	timed := len(qs)
	if r.N*r.Dim > 40_000_000 {
		timed = min(30, len(qs))
	}
	var truth [][]string
	r.P50us, r.P99us, truth = timeQueries(qs[:timed], search)
	rest := make([][]string, len(qs)-timed)
	var wg sync.WaitGroup
	step := runtime.GOMAXPROCS(0)
	for w := 0; w < step; w++ {
		wg.Go(func() {
			for i := w; i < len(rest); i += step {
				rest[i] = search(qs[timed+i])
			}
		})
	}
	wg.Wait()
	return append(truth, rest...)
}

// runOurs adds the vectors to an index.Manager over a Badger data dir in
// batches (stored, then linked by the given number of workers), searches
// through the Manager, and optionally measures reopening the dir and the
// keyword and hybrid searches over generated text.
func runOurs(c retrievalCase, efc, workers int, ids []string, base, qs [][]float32, truth [][]string, keyword bool,
	logf func(string, ...any)) (RetrievalResult, *KeywordResult, error) {
	r := RetrievalResult{Index: "hearth-hnsw", N: c.N, Dim: c.Dim, EfC: efc, Workers: workers}
	dir, err := os.MkdirTemp("", "hearthbench-retrieval-")
	if err != nil {
		return r, nil, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	opts := index.Options{HNSW: index.HNSWConfig{EfConstruction: efc, BuildWorkers: workers},
		ExactThreshold: 1, SnapshotInterval: -1, Logger: quietLogger()}
	open := func() (*blob.Store, *index.Manager, error) {
		s := blob.New(blob.Options{Dir: filepath.Join(dir, "db"), Logger: quietLogger()})
		if err := s.Open(); err != nil {
			return nil, nil, err
		}
		m := index.NewManager(s, filepath.Join(dir, "bleve"), opts)
		if err := m.Open(ctx); err != nil {
			s.Close()
			return nil, nil, err
		}
		return s, m, nil
	}
	s, m, err := open()
	if err != nil {
		return r, nil, err
	}
	closed := false
	defer func() {
		if !closed {
			m.Close()
			s.Close()
		}
	}()
	const batch = 10_000
	t := time.Now()
	for i := 0; i < len(base); i += batch {
		chunks := make([]engine.IndexedChunk, 0, batch)
		for j := i; j < min(i+batch, len(base)); j++ {
			chunks = append(chunks, engine.IndexedChunk{ID: ids[j], Vector: base[j]})
		}
		if err := m.Add(ctx, "vec", chunks); err != nil {
			return r, nil, err
		}
	}
	r.BuildSeconds = time.Since(t).Seconds()
	var got [][]string
	r.P50us, r.P99us, got = timeQueries(qs, func(q []float32) []string {
		h, _ := m.SearchVector(ctx, "vec", q, 10, nil)
		return hitIDs(h)
	})
	r.Recall10 = recall(got, truth)
	for _, st := range m.Stats() {
		if st.MemoryID == "vec" {
			// The index's own estimate: measuring the heap here would
			// count Badger's caches and memtables too.
			r.BytesPerVec = float64(st.Bytes) / float64(st.Vectors)
			r.Computed = append(r.Computed, "bytes_per_vector")
		}
	}
	var kw *KeywordResult
	if keyword {
		if kw, err = runKeyword(ctx, m, ids, qs, logf); err != nil {
			return r, nil, err
		}
	}
	if c.Reopen {
		logf("retrieval: closing (snapshot) and reopening the data dir holding %d vectors", c.N)
		m.Close()
		s.Close()
		closed = true
		t = time.Now()
		s, m, err = open()
		if err != nil {
			return r, nil, err
		}
		if _, err := m.SearchVector(ctx, "vec", qs[0], 10, nil); err != nil {
			return r, nil, err
		}
		r.ReopenSecs, r.ReopenNote = reopenFigure(m.Stats()[0].Load, time.Since(t).Seconds())
		if r.ReopenNote != "" {
			logf("retrieval: %s", r.ReopenNote)
		}
		m.Close()
		s.Close()
	}
	return r, kw, nil
}

// reopenFigure is the reopen time to report: none, with a note saying
// why, when the reopen did not load the snapshot alone (it rebuilt or
// replayed vectors, which is not what the column measures).
func reopenFigure(info index.LoadInfo, secs float64) (float64, string) {
	if !info.FromSnapshot || info.Replayed != 0 || info.Removed != 0 {
		return 0, fmt.Sprintf("reopen not reported: it did not load the snapshot alone (from snapshot %v, %d vectors replayed, %d removed, %.2f s)",
			info.FromSnapshot, info.Replayed, info.Removed, secs)
	}
	return secs, ""
}

// heapInUse is the live heap after a collection, in bytes.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// runKeyword indexes a chunk of generated text for every vector id (a
// keyword-only memory in the same Manager), then times BM25 searches and
// hybrid searches: vector and BM25 at depth 30, fused by RRF, top 10,
// which is what the memory engine does for a top_k of 10.
func runKeyword(ctx context.Context, m *index.Manager, ids []string, qs [][]float32, logf func(string, ...any)) (*KeywordResult, error) {
	res := &KeywordResult{N: len(ids)}
	logf("retrieval: BM25 index of %d chunks of generated text", len(ids))
	words := newVocab(1)
	const batch = 2000
	t := time.Now()
	for i := 0; i < len(ids); i += batch {
		chunks := make([]engine.IndexedChunk, 0, batch)
		for j := i; j < min(i+batch, len(ids)); j++ {
			text := words.sentences(60 + words.r.IntN(120))
			res.TextMB += float64(len(text)) / (1 << 20)
			chunks = append(chunks, engine.IndexedChunk{ID: ids[j], Text: text})
		}
		if err := m.Add(ctx, "kw", chunks); err != nil {
			return nil, err
		}
	}
	res.BuildSeconds = time.Since(t).Seconds()
	texts := make([]string, len(qs))
	for i := range texts {
		texts[i] = words.phrase(3 + words.r.IntN(4))
	}
	var bm, vec, hy []float64
	for i, q := range qs {
		t0 := time.Now()
		if _, err := m.SearchKeyword(ctx, "kw", texts[i], 10, nil); err != nil {
			return nil, err
		}
		bm = append(bm, float64(time.Since(t0).Nanoseconds())/1e3)
		t0 = time.Now()
		vh, err := m.SearchVector(ctx, "vec", q, 30, nil)
		if err != nil {
			return nil, err
		}
		vec = append(vec, float64(time.Since(t0).Nanoseconds())/1e3)
		kh, err := m.SearchKeyword(ctx, "kw", texts[i], 30, nil)
		if err != nil {
			return nil, err
		}
		_ = rank.FuseRRF(vh, kh, 1, 1, rank.DefaultRRFK) // the top 10 are its first 10
		hy = append(hy, float64(time.Since(t0).Nanoseconds())/1e3)
	}
	sort.Float64s(bm)
	sort.Float64s(vec)
	sort.Float64s(hy)
	res.BM25P50us, res.BM25P99us = percentile(bm, 50), percentile(bm, 99)
	res.VecP50us = percentile(vec, 50)
	res.HybridP50us, res.HybridP99us = percentile(hy, 50), percentile(hy, 99)
	return res, nil
}
