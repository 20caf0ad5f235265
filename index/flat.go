package index

import (
	"slices"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// Flat is an exact (brute-force) VectorIndex. It serves small memories,
// where a scan is as fast as a graph walk and always exact, and it is the
// ground truth that HNSW is measured against.
type Flat struct {
	mu sync.RWMutex
	t  table
}

// NewFlat returns an empty exact index; its dimension is fixed by the first Add.
func NewFlat() *Flat { return &Flat{t: newTable(0)} }

// Add implements VectorIndex.
func (f *Flat) Add(id string, vec []float32) error {
	v, err := prepare(vec, f.dim())
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.t.dim == 0 {
		f.t.dim = len(v)
	} else if f.t.dim != len(v) {
		return dimError(len(v), f.t.dim)
	}
	f.t.appendRow(id, v)
	return nil
}

// AddBatch implements VectorIndex.
func (f *Flat) AddBatch(ids []string, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return engine.Errorf(engine.CodeBadRequest, "%d ids for %d vectors", len(ids), len(vecs))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	norm := make([][]float32, len(vecs))
	dim := f.t.dim
	for i, v := range vecs {
		nv, err := prepare(v, dim)
		if err != nil {
			return err
		}
		norm[i], dim = nv, len(nv)
	}
	f.t.dim = dim
	f.t.vecs = slices.Grow(f.t.vecs, len(norm)*dim)
	f.t.ids = slices.Grow(f.t.ids, len(norm))
	f.t.dead = slices.Grow(f.t.dead, len(norm))
	for i, v := range norm {
		f.t.appendRow(ids[i], v)
	}
	return nil
}

func (f *Flat) dim() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.t.dim
}

// Delete implements VectorIndex.
func (f *Flat) Delete(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	i, ok := f.t.byID[id]
	if ok {
		f.t.kill(i)
	}
	return ok
}

// Search implements VectorIndex.
func (f *Flat) Search(q []float32, k int, allow func(string) bool) ([]engine.ChunkHit, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if k <= 0 || f.t.live() == 0 {
		return nil, nil
	}
	qv, err := prepare(q, f.t.dim)
	if err != nil {
		return nil, err
	}
	return f.t.hits(f.t.exact(qv, k, f.t.filter(allow)), k), nil
}

// Len implements VectorIndex.
func (f *Flat) Len() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.t.live()
}

// Tombstones implements VectorIndex.
func (f *Flat) Tombstones() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.t.nDead
}

// Compact implements VectorIndex by copying the live rows.
func (f *Flat) Compact() {
	f.mu.Lock()
	defer f.mu.Unlock()
	nt := newTable(f.t.dim)
	for i := range f.t.ids {
		if !f.t.dead[i] {
			nt.appendRow(f.t.ids[i], f.t.vec(uint32(i)))
		}
	}
	f.t = nt
}

// prepare validates and normalises a vector against the index dimension
// (0 = not fixed yet).
func prepare(v []float32, dim int) ([]float32, error) {
	if dim != 0 && len(v) != dim {
		return nil, dimError(len(v), dim)
	}
	nv, ok := normalize(v)
	if !ok {
		return nil, engine.Errorf(engine.CodeBadRequest, "vector is empty, zero or not finite")
	}
	return nv, nil
}

func dimError(got, want int) error {
	return engine.Errorf(engine.CodeBadRequest, "vector has %d dimensions, the index has %d", got, want)
}

var (
	_ VectorIndex = (*Flat)(nil)
	_ VectorIndex = (*HNSW)(nil)
)
