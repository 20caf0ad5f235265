package index

import (
	"math"
	"sync"
)

// graph is the data of one HNSW: the vector table plus links. Layer-0 links
// live in one flat array (fixed slots of m0 ids after a count), upper-layer
// links in a small per-node array, so a search touches few allocations.
type graph struct {
	table
	m, m0, efC int
	ml         float64
	levels     []uint8
	l0         []uint32   // node i: l0[i*(m0+1)] = count, then the ids
	up         [][]uint32 // node i, layer l>=1: up[i][(l-1)*(m+1)] = count, then ids
	entry      uint32
	maxLevel   int
	hasEntry   bool
}

func newGraph(cfg HNSWConfig, dim int) *graph {
	return &graph{
		table: newTable(dim),
		m:     cfg.M, m0: 2 * cfg.M, efC: cfg.EfConstruction,
		ml: 1 / math.Log(float64(cfg.M)),
	}
}

func (g *graph) neighbors(i uint32, lc int) []uint32 {
	if lc == 0 {
		o := int(i) * (g.m0 + 1)
		n := int(g.l0[o])
		return g.l0[o+1 : o+1+n]
	}
	o := (lc - 1) * (g.m + 1)
	u := g.up[i]
	n := int(u[o])
	return u[o+1 : o+1+n]
}

// slot returns the whole link slot (count + capacity) of node i on layer lc.
func (g *graph) slot(i uint32, lc int) []uint32 {
	if lc == 0 {
		o := int(i) * (g.m0 + 1)
		return g.l0[o : o+g.m0+1]
	}
	o := (lc - 1) * (g.m + 1)
	return g.up[i][o : o+g.m+1]
}

func (g *graph) setNeighbors(i uint32, lc int, ids []uint32) {
	s := g.slot(i, lc)
	s[0] = uint32(copy(s[1:], ids))
}

func (g *graph) appendNode(id string, v []float32, level int) uint32 {
	n := g.appendRow(id, v)
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
func (g *graph) greedy(q []float32, ep cand, lc int) cand {
	for changed := true; changed; {
		changed = false
		for _, nb := range g.neighbors(ep.id, lc) {
			if d := 1 - dot(q, g.vec(nb)); d < ep.d {
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
func (g *graph) searchLayer(q []float32, eps []cand, ef, lc int, filter func(uint32) bool, budget int, vis *visited) (top maxHeap, truncated bool) {
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
	for len(cands) > 0 {
		c := cands.pop()
		if len(top) >= ef && c.d > bound {
			break
		}
		for _, nb := range g.neighbors(c.id, lc) {
			if vis.visit(nb) {
				continue
			}
			d := 1 - dot(q, g.vec(nb))
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
		vc := g.vec(c.id)
		keep := true
		for _, r := range out {
			if 1-dot(vc, g.vec(r.id)) < c.d {
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

type linkUpdate struct {
	node  uint32
	add   bool     // append the new node to a non-full slot
	links []uint32 // otherwise: the full replacement list
}

// insert adds a node (the paper's INSERT). Only the single writer calls it;
// it reads the graph without locking and takes lk only to publish changes.
func (g *graph) insert(id string, v []float32, level int, lk sync.Locker, vis *visited) {
	lk.Lock()
	n := g.appendNode(id, v, level)
	if !g.hasEntry {
		g.entry, g.maxLevel, g.hasEntry = n, level, true
		lk.Unlock()
		return
	}
	lk.Unlock()

	ep := cand{g.entry, 1 - dot(v, g.vec(g.entry))}
	for lc := g.maxLevel; lc > level; lc-- {
		ep = g.greedy(v, ep, lc)
	}
	eps := []cand{ep}
	for lc := min(level, g.maxLevel); lc >= 0; lc-- {
		vis.reset(len(g.ids))
		vis.visit(n)
		top, _ := g.searchLayer(v, eps, g.efC, lc, nil, 0, vis)
		w := top.sorted()
		sel := g.selectNeighbors(w, g.m)
		mmax := g.maxLinks(lc)
		ups := make([]linkUpdate, 0, len(sel))
		for _, s := range sel {
			cur := g.neighbors(s.id, lc)
			if len(cur) < mmax {
				ups = append(ups, linkUpdate{node: s.id, add: true})
				continue
			}
			base := g.vec(s.id)
			cs := make([]cand, 0, len(cur)+1)
			for _, x := range cur {
				cs = append(cs, cand{x, 1 - dot(base, g.vec(x))})
			}
			cs = append(cs, cand{n, s.d})
			kept := g.selectNeighbors(maxHeap(cs).sorted(), mmax)
			ups = append(ups, linkUpdate{node: s.id, links: candIDs(kept)})
		}
		lk.Lock()
		g.setNeighbors(n, lc, candIDs(sel))
		for _, u := range ups {
			if u.add {
				s := g.slot(u.node, lc)
				s[0]++
				s[s[0]] = n
			} else {
				g.setNeighbors(u.node, lc, u.links)
			}
		}
		lk.Unlock()
		eps = w
	}
	if level > g.maxLevel {
		lk.Lock()
		g.entry, g.maxLevel = n, level
		lk.Unlock()
	}
}

func candIDs(cs []cand) []uint32 {
	out := make([]uint32, len(cs))
	for i, c := range cs {
		out[i] = c.id
	}
	return out
}
