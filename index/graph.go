package index

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// lockStripes is the number of link locks of a graph: node i's links are
// guarded by locks[i%lockStripes] while they are changed.
const lockStripes = 1024

// graph is the data of one HNSW: the vector table plus links. Layer-0 links
// live in one flat array (fixed slots of m0 ids after a count), upper-layer
// links in a small per-node array, so a search touches few allocations.
//
// Links may change while they are read: goroutines linking new nodes run in
// parallel with each other and with searches. Every link word (count and
// ids) is therefore read and written atomically, and a node's links are
// changed only under its stripe lock. A reader may see a list half-way
// between its old and new contents; every id in it is still a valid node,
// which is all a walk needs. The arrays themselves (vectors, levels, slots)
// only grow while no one links and searches are locked out.
type graph struct {
	table
	m, m0, efC int
	ml         float64
	levels     []uint8
	l0         []uint32   // node i: l0[i*(m0+1)] = count, then the ids
	up         [][]uint32 // node i, layer l>=1: up[i][(l-1)*(m+1)] = count, then ids
	// codes holds each vector quantised to int8 (row i at i*dim), inv the
	// factor back to values. Walks compare codes (a quarter of the memory
	// traffic); results are re-ranked with the float32 vectors.
	codes []int8
	inv   []float32

	// top is the entry point: bit 63 set when there is one, the top layer
	// in bits 32-39, the node in the low 32 bits.
	top atomic.Uint64
	// topMu serialises the linking of nodes that rise above the top layer
	// (and of the first node), as in hnswlib.
	topMu sync.Mutex
	locks [lockStripes]sync.Mutex
}

func newGraph(cfg HNSWConfig, dim int) *graph {
	return &graph{
		table: newTable(dim),
		m:     cfg.M, m0: 2 * cfg.M, efC: cfg.EfConstruction,
		ml: 1 / math.Log(float64(cfg.M)),
	}
}

// entryPoint returns the entry node and the top layer; ok is false while
// the graph is empty.
func (g *graph) entryPoint() (entry uint32, level int, ok bool) {
	t := g.top.Load()
	return uint32(t), int(t>>32) & 0xff, t>>63 == 1
}

func (g *graph) setEntry(n uint32, level int) {
	g.top.Store(1<<63 | uint64(level&0xff)<<32 | uint64(n))
}

// slot returns the whole link slot (count + capacity) of node i on layer lc.
func (g *graph) slot(i uint32, lc int) []uint32 {
	if lc == 0 {
		o := int(i) * (g.m0 + 1)
		return g.l0[o : o+g.m0+1 : o+g.m0+1]
	}
	o := (lc - 1) * (g.m + 1)
	return g.up[i][o : o+g.m+1 : o+g.m+1]
}

// links appends the neighbours of node i on layer lc to buf.
func (g *graph) links(i uint32, lc int, buf []uint32) []uint32 {
	s := g.slot(i, lc)
	n := min(int(atomic.LoadUint32(&s[0])), len(s)-1)
	for j := 1; j <= n; j++ {
		buf = append(buf, atomic.LoadUint32(&s[j]))
	}
	return buf
}

// setLinks replaces the neighbours of node i on layer lc: ids first, then
// the count. Callers hold i's stripe lock, or are alone with the graph.
func (g *graph) setLinks(i uint32, lc int, ids []uint32) {
	s := g.slot(i, lc)
	n := min(len(ids), len(s)-1)
	for j := 0; j < n; j++ {
		atomic.StoreUint32(&s[j+1], ids[j])
	}
	atomic.StoreUint32(&s[0], uint32(n))
}

func (g *graph) lock(i uint32) *sync.Mutex {
	mu := &g.locks[i%lockStripes]
	mu.Lock()
	return mu
}

// query is a vector as a walk compares it: int8 codes and their factor.
type query struct {
	c   []int8
	inv float32
}

func (g *graph) code(i uint32) []int8 {
	o := int(i) * g.dim
	return g.codes[o : o+g.dim : o+g.dim]
}

// queryOf quantises a normalised vector for a walk.
func queryOf(v []float32) query {
	c := make([]int8, len(v))
	return query{c, quantize(v, c)}
}

func (g *graph) nodeQuery(i uint32) query { return query{g.code(i), g.inv[i]} }

// prefetch asks for node i's codes and factor.
func (g *graph) prefetch(i uint32) {
	prefetch(g.code(i))
	prefetch(unsafe.Slice((*int8)(unsafe.Pointer(&g.inv[i])), 4))
}

// dist is the approximate distance (1 - cosine) of node i to q.
func (g *graph) dist(q query, i uint32) float32 {
	return 1 - float32(dotI8(q.c, g.code(i)))*q.inv*g.inv[i]
}

// rerank replaces the approximate distances of a walk's result with exact
// ones and sorts it nearest first (ties by dense id).
func (g *graph) rerank(q []float32, cs maxHeap) []cand {
	out := []cand(cs)
	for i := range out {
		out[i].d = 1 - dot(q, g.vec(out[i].id))
	}
	slices.SortFunc(out, nearer)
	return out
}

// grow makes room for n more nodes so a batch appends without copying.
func (g *graph) grow(n int) {
	g.vecs = slices.Grow(g.vecs, n*g.dim)
	g.codes = slices.Grow(g.codes, n*g.dim)
	g.inv = slices.Grow(g.inv, n)
	g.l0 = slices.Grow(g.l0, n*(g.m0+1))
	g.ids = slices.Grow(g.ids, n)
	g.dead = slices.Grow(g.dead, n)
	g.levels = slices.Grow(g.levels, n)
	g.up = slices.Grow(g.up, n)
}

// appendNode adds an unlinked node; nothing reaches it until link runs.
func (g *graph) appendNode(id string, v []float32, level int) uint32 {
	n := g.appendRow(id, v)
	g.codes = append(g.codes, make([]int8, g.dim)...)
	g.inv = append(g.inv, quantize(v, g.code(n)))
	g.levels = append(g.levels, uint8(level))
	g.l0 = append(g.l0, make([]uint32, g.m0+1)...)
	var u []uint32
	if level > 0 {
		u = make([]uint32, level*(g.m+1))
	}
	g.up = append(g.up, u)
	return n
}

func (g *graph) maxLinks(lc int) int {
	if lc == 0 {
		return g.m0
	}
	return g.m
}

// greedy walks layer lc towards q, one best neighbour at a time (ef = 1).
func (g *graph) greedy(q query, ep cand, lc int) cand {
	for changed := true; changed; {
		changed = false
		s := g.slot(ep.id, lc)
		n := min(int(atomic.LoadUint32(&s[0])), len(s)-1)
		for j := 1; j <= n; j++ {
			nb := atomic.LoadUint32(&s[j])
			if d := g.dist(q, nb); d < ep.d {
				ep = cand{nb, d}
				changed = true
			}
		}
	}
	return ep
}

// searchLayer is the paper's SEARCH-LAYER: a best-first expansion from eps
// keeping the ef nearest nodes that pass filter (all nodes when nil).
// Nodes failing the filter are still expanded, so tombstones and filtered
// nodes keep the graph connected. With budget > 0 it stops after that many
// distance computations and reports truncated.
func (g *graph) searchLayer(q query, eps []cand, ef, lc int, filter func(uint32) bool, budget int, vis *visited) (top maxHeap, truncated bool) {
	cands := make(minHeap, 0, ef*2)
	top = make(maxHeap, 0, ef+1)
	for _, e := range eps {
		if vis.visit(e.id) {
			continue
		}
		cands.push(e)
		if filter == nil || filter(e.id) {
			top.push(e)
			if len(top) > ef {
				top.pop()
			}
		}
	}
	bound := float32(math.Inf(1))
	if len(top) > 0 {
		bound = top[0].d
	}
	computed := 0
	var stack [64]uint32
	buf := stack[:]
	if g.m0 > len(buf) {
		buf = make([]uint32, g.m0)
	}
	for len(cands) > 0 {
		c := cands.pop()
		if len(top) >= ef && c.d > bound {
			break
		}
		s := g.slot(c.id, lc)
		n := min(int(atomic.LoadUint32(&s[0])), len(s)-1)
		fresh := buf[:0]
		for j := 1; j <= n; j++ {
			if nb := atomic.LoadUint32(&s[j]); !vis.visit(nb) {
				fresh = append(fresh, nb)
			}
		}
		// Ask for the codes a few neighbours ahead: the walk is bound by
		// memory latency, and this overlaps the loads.
		for _, nb := range fresh[:min(len(fresh), prefetchAhead)] {
			g.prefetch(nb)
		}
		for i, nb := range fresh {
			if i+prefetchAhead < len(fresh) {
				g.prefetch(fresh[i+prefetchAhead])
			}
			d := g.dist(q, nb)
			computed++
			if len(top) < ef || d < bound {
				cands.push(cand{nb, d})
				if filter == nil || filter(nb) {
					top.push(cand{nb, d})
					if len(top) > ef {
						top.pop()
					}
					bound = top[0].d
				}
			}
		}
		if budget > 0 && computed >= budget {
			return top, true
		}
	}
	return top, false
}

// selectNeighbors is the paper's heuristic (Algorithm 4, without extending
// or keeping pruned candidates): walking candidates nearest first, keep one
// only if it is nearer to the base than to every neighbour already kept.
// This spreads links across directions and keeps clusters connected, which
// plain nearest-M selection does not. cands must be sorted nearest first.
func (g *graph) selectNeighbors(cands []cand, m int) []cand {
	if len(cands) <= m {
		return cands
	}
	out := make([]cand, 0, m)
	for _, c := range cands {
		if len(out) >= m {
			break
		}
		qc := g.nodeQuery(c.id)
		keep := true
		for _, r := range out {
			if g.dist(qc, r.id) < c.d {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}

// link connects node n, already appended, into the graph (the paper's
// INSERT). Several goroutines may link different nodes at once, and
// searches may run meanwhile. The layers are searched top-down, then linked
// bottom-up, so a walk that reaches n on a layer finds it linked on every
// layer below.
func (g *graph) link(n uint32, vis *visited) {
	q := g.nodeQuery(n)
	level := int(g.levels[n])
	entry, top, ok := g.entryPoint()
	if !ok || level > top {
		g.topMu.Lock()
		defer g.topMu.Unlock()
		if entry, top, ok = g.entryPoint(); !ok {
			g.setEntry(n, level)
			return
		}
	}
	ep := cand{entry, g.dist(q, entry)}
	for lc := top; lc > level; lc-- {
		ep = g.greedy(q, ep, lc)
	}
	sels := make([][]cand, min(level, top)+1)
	eps := []cand{ep}
	for lc := len(sels) - 1; lc >= 0; lc-- {
		vis.reset(len(g.ids))
		vis.visit(n)
		found, _ := g.searchLayer(q, eps, g.efC, lc, nil, 0, vis)
		w := found.sorted()
		sels[lc] = g.selectNeighbors(w, g.m)
		eps = w
	}
	for lc, sel := range sels {
		g.connect(n, lc, sel)
	}
	if level > top {
		g.setEntry(n, level)
	}
}

// connect gives n the links sel on layer lc and adds n to the links of
// each of them, shrinking a full list with the selection heuristic.
func (g *graph) connect(n uint32, lc int, sel []cand) {
	ids := make([]uint32, len(sel))
	for i, s := range sel {
		ids[i] = s.id
	}
	mu := g.lock(n)
	g.setLinks(n, lc, ids)
	mu.Unlock()
	mmax := g.maxLinks(lc)
	var buf []uint32
	var cs []cand
	for _, s := range sel {
		mu := g.lock(s.id)
		buf = g.links(s.id, lc, buf[:0])
		if len(buf) < mmax {
			sl := g.slot(s.id, lc)
			atomic.StoreUint32(&sl[len(buf)+1], n)
			atomic.StoreUint32(&sl[0], uint32(len(buf)+1))
		} else {
			base := g.nodeQuery(s.id)
			cs = cs[:0]
			for _, x := range buf {
				cs = append(cs, cand{x, g.dist(base, x)})
			}
			cs = append(cs, cand{n, s.d})
			kept := g.selectNeighbors(maxHeap(cs).sorted(), mmax)
			buf = buf[:0]
			for _, k := range kept {
				buf = append(buf, k.id)
			}
			g.setLinks(s.id, lc, buf)
		}
		mu.Unlock()
	}
}

// prefetchAhead is how many neighbours ahead a walk asks for codes.
const prefetchAhead = 4
