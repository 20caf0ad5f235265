package index

import (
	"slices"

	"github.com/hearth-dev/hearth/engine"
)

// VectorIndex is an in-memory nearest-neighbour index over unit vectors
// addressed by string ids. Flat (exact) and HNSW (approximate) implement it;
// one conformance suite tests both.
type VectorIndex interface {
	// Add normalises a copy of vec and stores it under id, replacing any
	// previous vector with that id.
	Add(id string, vec []float32) error
	// AddBatch adds many vectors as Add would, faster; when one is
	// invalid it returns an error and adds none.
	AddBatch(ids []string, vecs [][]float32) error
	// Delete tombstones id; it reports whether id was present.
	Delete(id string) bool
	// Search returns up to k live vectors most similar to q (cosine), best
	// first, skipping ids for which allow (when non-nil) returns false.
	Search(q []float32, k int, allow func(id string) bool) ([]engine.ChunkHit, error)
	// Len is the number of live vectors.
	Len() int
	// Tombstones is the number of deleted vectors still held.
	Tombstones() int
	// Compact drops tombstones.
	Compact()
}

// cand is a search candidate: a dense id and its distance (1 - cosine) to
// the query.
type cand struct {
	id uint32
	d  float32
}

// table holds vectors under dense ids 0..n-1. Deleted rows stay as
// tombstones until compaction so dense ids (and graph edges) stay valid.
type table struct {
	dim   int
	vecs  []float32 // row i is vecs[i*dim:(i+1)*dim]
	ids   []string
	byID  map[string]uint32 // live rows only
	dead  []bool
	nDead int
}

func newTable(dim int) table { return table{dim: dim, byID: map[string]uint32{}} }

func (t *table) vec(i uint32) []float32 {
	o := int(i) * t.dim
	return t.vecs[o : o+t.dim : o+t.dim]
}

func (t *table) live() int { return len(t.ids) - t.nDead }

// appendRow stores v (already normalised) under id, tombstoning any live
// row with the same id, and returns the new row.
func (t *table) appendRow(id string, v []float32) uint32 {
	if old, ok := t.byID[id]; ok {
		t.kill(old)
	}
	n := uint32(len(t.ids))
	t.vecs = append(t.vecs, v...)
	t.ids = append(t.ids, id)
	t.dead = append(t.dead, false)
	t.byID[id] = n
	return n
}

func (t *table) kill(i uint32) {
	if t.dead[i] {
		return
	}
	t.dead[i] = true
	t.nDead++
	if cur, ok := t.byID[t.ids[i]]; ok && cur == i {
		delete(t.byID, t.ids[i])
	}
}

// filter returns the row predicate for a search: live and allowed.
func (t *table) filter(allow func(string) bool) func(uint32) bool {
	if allow == nil {
		if t.nDead == 0 {
			return nil
		}
		return func(i uint32) bool { return !t.dead[i] }
	}
	return func(i uint32) bool { return !t.dead[i] && allow(t.ids[i]) }
}

// exact scans every row that passes ok and returns the k nearest, sorted.
func (t *table) exact(q []float32, k int, ok func(uint32) bool) []cand {
	if k <= 0 {
		return nil
	}
	top := make(maxHeap, 0, k)
	for i := range t.ids {
		id := uint32(i)
		if t.dead[i] || (ok != nil && !ok(id)) {
			continue
		}
		d := 1 - dot(q, t.vec(id))
		if len(top) < k {
			top.push(cand{id, d})
		} else if d < top[0].d {
			top[0] = cand{id, d}
			top.down(0)
		}
	}
	return top.sorted()
}

// hits converts sorted candidates to engine hits with cosine scores.
func (t *table) hits(cs []cand, k int) []engine.ChunkHit {
	if len(cs) > k {
		cs = cs[:k]
	}
	out := make([]engine.ChunkHit, len(cs))
	for i, c := range cs {
		out[i] = engine.ChunkHit{ID: t.ids[c.id], Score: float64(1 - c.d)}
	}
	return out
}

// bytes estimates the heap memory held by the table.
func (t *table) bytes() int64 {
	b := int64(cap(t.vecs))*4 + int64(cap(t.ids))*16 + int64(cap(t.dead))
	for _, id := range t.ids {
		b += int64(len(id))
	}
	return b + int64(len(t.byID))*40 // map entry: key header, value, bucket overhead
}

// minHeap pops the nearest candidate first.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].d <= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].d < s[l].d {
			m = r
		}
		if s[i].d <= s[m].d {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// maxHeap keeps the farthest candidate at index 0, so it holds a bounded
// best-so-far set.
type maxHeap []cand

func (h *maxHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].d >= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *maxHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	h.down(0)
	return top
}

func (h maxHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].d > h[l].d {
			m = r
		}
		if h[i].d >= h[m].d {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// sorted returns the candidates nearest first (ties by dense id) and
// leaves the heap unusable.
func (h maxHeap) sorted() []cand {
	s := slices.Clone([]cand(h))
	slices.SortFunc(s, nearer)
	return s
}

// nearer orders candidates nearest first, ties by dense id.
func nearer(a, b cand) int {
	switch {
	case a.d < b.d:
		return -1
	case a.d > b.d:
		return 1
	}
	return int(a.id) - int(b.id)
}
