package index

import (
	"testing"
)

// TestHNSWRecall checks recall@10 of the graph against exact search on a
// clustered synthetic dataset of tens of thousands of vectors.
func TestHNSWRecall(t *testing.T) {
	n, dim, nq := 20000, 64, 200
	if raceEnabled || testing.Short() {
		n = 4000
	}
	data := clustered(n+nq, dim, 200, 42)
	base, queries := data[:n], data[n:]
	h := NewHNSW(HNSWConfig{Seed: 1})
	flat := NewFlat()
	fill(t, h, base)
	fill(t, flat, base)
	var got, want [][]string
	for _, q := range queries {
		a, err := h.Search(q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := flat.Search(q, 10, nil)
		got, want = append(got, ids(a)), append(want, ids(e))
	}
	r := recallAt(got, want)
	t.Logf("recall@10 = %.4f (n=%d, dim=%d, M=%d, efC=%d, ef=%d)", r, n, dim, h.cfg.M, h.cfg.EfConstruction, h.cfg.EfSearch)
	if r < 0.95 {
		t.Fatalf("recall@10 = %.4f, want >= 0.95", r)
	}
}
