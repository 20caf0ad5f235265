package index

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hearth-dev/hearth/engine"
)

// HNSWConfig holds the graph parameters. Zero fields take the defaults.
type HNSWConfig struct {
	// M is the number of links a node keeps on the upper layers; layer 0
	// keeps up to 2*M. Default 16.
	M int
	// EfConstruction is the candidate list size while inserting. Default 200.
	EfConstruction int
	// EfSearch is the candidate list size while searching; a search uses
	// max(EfSearch, k). Default 128.
	EfSearch int
	// Seed makes level assignment deterministic (tests, benchmarks).
	// Inserts of a batch run in parallel, so only one-at-a-time Adds
	// build the same graph twice.
	Seed uint64
	// BuildWorkers is how many goroutines link the vectors of a batch
	// (AddBatch, Compact, Manager rebuilds and large Adds). Default
	// GOMAXPROCS.
	BuildWorkers int
}

func (c HNSWConfig) withDefaults() HNSWConfig {
	if c.M <= 1 {
		c.M = 16
	}
	if c.EfConstruction <= 0 {
		c.EfConstruction = 200
	}
	if c.EfConstruction < c.M {
		c.EfConstruction = c.M
	}
	if c.EfSearch <= 0 {
		c.EfSearch = 128
	}
	if c.BuildWorkers <= 0 {
		c.BuildWorkers = runtime.GOMAXPROCS(0)
	}
	return c
}

// HNSW is a hierarchical navigable small world graph (Malkov & Yashunin,
// 2016) over unit vectors with dot-product similarity.
//
// Concurrency: any number of searches run in parallel with one writer.
// Writers serialise on wmu. A writer takes mu exclusively only to append
// nodes (growing the arrays) or to delete; it then links the new nodes
// without mu, on several goroutines for a batch, while searches go on (see
// graph for how links are shared).
type HNSW struct {
	cfg HNSWConfig

	wmu  sync.Mutex // one writer at a time: Add, Delete, Compact, snapshots
	rng  *rand.Rand // guarded by wmu
	wvis []*visited // the linking goroutines' visited sets, guarded by wmu

	mu sync.RWMutex // readers vs the writer's mutations
	g  *graph

	pool sync.Pool // *visited for readers
}

// NewHNSW returns an empty graph; its dimension is fixed by the first Add.
func NewHNSW(cfg HNSWConfig) *HNSW {
	cfg = cfg.withDefaults()
	h := &HNSW{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))}
	h.g = newGraph(cfg, 0)
	return h
}

// Config returns the parameters in use.
func (h *HNSW) Config() HNSWConfig { return h.cfg }

// SetEfSearch changes the search candidate list size.
func (h *HNSW) SetEfSearch(ef int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ef > 0 {
		h.cfg.EfSearch = ef
	}
}

func (h *HNSW) randomLevel() int {
	l := int(math.Floor(-math.Log(1-h.rng.Float64()) * h.g.ml))
	return min(l, 31)
}

// Add implements VectorIndex.
func (h *HNSW) Add(id string, vec []float32) error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	v, err := prepare(vec, h.g.dim)
	if err != nil {
		return err
	}
	h.insertLocked([]string{id}, [][]float32{v})
	return nil
}

// AddBatch implements VectorIndex: the vectors are checked first (none is
// added when one is invalid), then linked by cfg.BuildWorkers goroutines.
func (h *HNSW) AddBatch(ids []string, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return engine.Errorf(engine.CodeBadRequest, "%d ids for %d vectors", len(ids), len(vecs))
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	norm := make([][]float32, len(vecs))
	dim := h.g.dim
	for i, v := range vecs {
		nv, err := prepare(v, dim)
		if err != nil {
			return err
		}
		norm[i], dim = nv, len(nv)
	}
	h.insertLocked(ids, norm)
	return nil
}

// insertLocked appends normalised vectors of one dimension, then links
// them; the caller holds wmu.
func (h *HNSW) insertLocked(ids []string, vecs [][]float32) {
	if len(ids) == 0 {
		return
	}
	h.mu.Lock()
	g := h.g
	if g.dim == 0 {
		g.dim = len(vecs[0])
	}
	from := len(g.ids)
	g.grow(len(ids))
	for i, id := range ids {
		g.appendNode(id, vecs[i], h.randomLevel())
	}
	h.mu.Unlock()
	h.linkAll(g, from, len(g.ids))
}

// serialPrefix: the first nodes of a graph are linked one at a time, as
// parallel inserts into a nearly empty graph would miss each other.
const serialPrefix = 1024

// linkAll links nodes from..to-1 of g, in parallel when there are enough;
// the caller holds wmu and no one else links g.
func (h *HNSW) linkAll(g *graph, from, to int) {
	for ; from < to && from < serialPrefix; from++ {
		g.link(uint32(from), h.visited(0))
	}
	workers := min(h.cfg.BuildWorkers, (to-from+63)/64)
	if workers <= 1 {
		for ; from < to; from++ {
			g.link(uint32(from), h.visited(0))
		}
		return
	}
	var next atomic.Int64
	next.Store(int64(from))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		vis := h.visited(w)
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(to); i = next.Add(1) - 1 {
				g.link(uint32(i), vis)
			}
		})
	}
	wg.Wait()
}

// visited returns linking goroutine w's visited set; the caller holds wmu.
func (h *HNSW) visited(w int) *visited {
	for len(h.wvis) <= w {
		h.wvis = append(h.wvis, new(visited))
	}
	return h.wvis[w]
}

// Delete implements VectorIndex. The node stays in the graph as a tombstone
// so searches can still route through it.
func (h *HNSW) Delete(id string) bool {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	i, ok := h.g.byID[id]
	if ok {
		h.g.kill(i)
	}
	return ok
}

// Len implements VectorIndex.
func (h *HNSW) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.g.live()
}

// Tombstones implements VectorIndex.
func (h *HNSW) Tombstones() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.g.nDead
}

// Bytes estimates the memory held by vectors, ids and links.
func (h *HNSW) Bytes() int64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	g := h.g
	b := g.table.bytes() + int64(cap(g.l0))*4 + int64(cap(g.levels)) + int64(cap(g.up))*24 +
		int64(cap(g.codes)) + int64(cap(g.inv))*4
	for _, u := range g.up {
		b += int64(cap(u)) * 4
	}
	return b
}

// Compact rebuilds the graph from the live vectors, dropping tombstones.
// Searches keep using the old graph until the new one is swapped in.
func (h *HNSW) Compact() {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	old := h.g
	ng := newGraph(h.cfg, old.dim)
	ng.grow(old.live())
	for i := range old.ids {
		if !old.dead[i] {
			ng.appendNode(old.ids[i], old.vec(uint32(i)), h.randomLevel())
		}
	}
	h.linkAll(ng, 0, len(ng.ids))
	h.mu.Lock()
	h.g = ng
	h.mu.Unlock()
}

// Search implements VectorIndex: a greedy descent through the upper layers,
// then a best-first search of layer 0 bounded by ef = max(EfSearch, k).
// Tombstoned and disallowed nodes are walked through but never returned.
// When a filter is so selective that the bounded walk cannot find k allowed
// nodes, it falls back to an exact scan of the allowed ones.
func (h *HNSW) Search(q []float32, k int, allow func(string) bool) ([]engine.ChunkHit, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	g := h.g
	if k <= 0 || g.live() == 0 {
		return nil, nil
	}
	qv, err := prepare(q, g.dim)
	if err != nil {
		return nil, err
	}
	filter := g.filter(allow)
	ef := max(h.cfg.EfSearch, k)
	budget := 0
	if allow != nil {
		budget = max(32*ef, len(g.ids)/16)
	}
	vis := h.getVisited()
	defer h.pool.Put(vis)
	wq := queryOf(qv)
	entry, topLayer, _ := g.entryPoint()
	ep := cand{entry, g.dist(wq, entry)}
	for lc := topLayer; lc > 0; lc-- {
		ep = g.greedy(wq, ep, lc)
	}
	vis.reset(len(g.ids))
	top, _ := g.searchLayer(wq, []cand{ep}, ef, 0, filter, budget, vis)
	if len(top) < min(k, g.live()) {
		return g.hits(g.exact(qv, k, filter), k), nil
	}
	return g.hits(g.rerank(qv, top), k), nil
}

// SearchExact scans every live vector; Manager uses it for small memories.
func (h *HNSW) SearchExact(q []float32, k int, allow func(string) bool) ([]engine.ChunkHit, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	g := h.g
	if k <= 0 || g.live() == 0 {
		return nil, nil
	}
	qv, err := prepare(q, g.dim)
	if err != nil {
		return nil, err
	}
	return g.hits(g.exact(qv, k, g.filter(allow)), k), nil
}

func (h *HNSW) getVisited() *visited {
	if v, ok := h.pool.Get().(*visited); ok {
		return v
	}
	return new(visited)
}

// visited is a reusable visited set: a slot equals gen when visited.
type visited struct {
	marks []uint16
	gen   uint16
}

func (v *visited) reset(n int) {
	if len(v.marks) < n {
		v.marks = make([]uint16, n+n/4+64)
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 {
		clear(v.marks)
		v.gen = 1
	}
}

// visit marks i and reports whether it was already marked.
func (v *visited) visit(i uint32) bool {
	if v.marks[i] == v.gen {
		return true
	}
	v.marks[i] = v.gen
	return false
}

func (h *HNSW) has(id string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	_, ok := h.g.byID[id]
	return ok
}

func (h *HNSW) dim() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.g.dim
}

// insertNormalized adds vectors already validated and normalised.
func (h *HNSW) insertNormalized(ids []string, vecs [][]float32) {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.insertLocked(ids, vecs)
}

// sweep deletes the live nodes below limit for which keep returns false
// and reports how many it deleted.
func (h *HNSW) sweep(limit int, keep func(i uint32) bool) int {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for i := 0; i < limit && i < len(h.g.ids); i++ {
		if !h.g.dead[i] && !keep(uint32(i)) {
			h.g.kill(uint32(i))
			n++
		}
	}
	return n
}

// lookup returns the dense id of a live vector and the number of nodes.
func (h *HNSW) lookup(id string) (uint32, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	i, ok := h.g.byID[id]
	return i, ok
}

func (h *HNSW) nodes() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.g.ids)
}
