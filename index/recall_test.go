package index

import (
	"sync"
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

// TestHNSWParallelBuild links a batch on several goroutines (more than
// there are CPUs, to interleave them) while searches run, and checks that
// recall holds. Run with -race.
func TestHNSWParallelBuild(t *testing.T) {
	n, dim, nq := 20000, 64, 200
	if raceEnabled || testing.Short() {
		n = 3000
	}
	data := clustered(n+nq, dim, 200, 43)
	base, queries := data[:n], data[n:]
	names := make([]string, n)
	for i := range names {
		names[i] = chunkID(i)
	}
	h := NewHNSW(HNSWConfig{Seed: 1, BuildWorkers: 4})
	// The first serialPrefix nodes are linked one at a time; the rest of
	// the batch in parallel, with searches running alongside.
	if err := h.AddBatch(names[:serialPrefix], base[:serialPrefix]); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 2; r++ {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := h.Search(queries[(i+r)%nq], 10, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	if err := h.AddBatch(names[serialPrefix:], base[serialPrefix:]); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	flat := NewFlat()
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
	t.Logf("recall@10 = %.4f (n=%d, dim=%d, 4 build workers)", r, n, dim)
	if r < 0.95 {
		t.Fatalf("recall@10 = %.4f, want >= 0.95", r)
	}
	if h.Len() != n {
		t.Fatalf("Len %d", h.Len())
	}
}
