package index

import (
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// vectorIndexes lists every VectorIndex implementation; the conformance
// suite below runs against each.
var vectorIndexes = map[string]func() VectorIndex{
	"flat": func() VectorIndex { return NewFlat() },
	"hnsw": func() VectorIndex { return NewHNSW(HNSWConfig{M: 12, EfConstruction: 100, EfSearch: 64, Seed: 1}) },
}

func TestVectorIndexConformance(t *testing.T) {
	for name, mk := range vectorIndexes {
		t.Run(name, func(t *testing.T) {
			t.Run("empty", func(t *testing.T) { testEmpty(t, mk()) })
			t.Run("basic", func(t *testing.T) { testBasic(t, mk()) })
			t.Run("delete", func(t *testing.T) { testDelete(t, mk()) })
			t.Run("filter", func(t *testing.T) { testFilter(t, mk()) })
			t.Run("concurrent", func(t *testing.T) { testConcurrent(t, mk()) })
			t.Run("batch", func(t *testing.T) { testBatch(t, mk()) })
			t.Run("errors", func(t *testing.T) { testErrors(t, mk()) })
		})
	}
}

func ids(hits []engine.ChunkHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func mustSearch(t *testing.T, ix VectorIndex, q []float32, k int, allow func(string) bool) []engine.ChunkHit {
	t.Helper()
	hits, err := ix.Search(q, k, allow)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("hits not sorted: %v", hits)
		}
	}
	return hits
}

func fill(t *testing.T, ix VectorIndex, vs [][]float32) {
	t.Helper()
	for i, v := range vs {
		if err := ix.Add(chunkID(i), v); err != nil {
			t.Fatal(err)
		}
	}
}

func testEmpty(t *testing.T, ix VectorIndex) {
	if hits := mustSearch(t, ix, []float32{1, 0}, 5, nil); len(hits) != 0 {
		t.Fatalf("empty index returned %v", hits)
	}
	if ix.Delete("nope") {
		t.Fatal("delete of a missing id reported true")
	}
}

func testBasic(t *testing.T, ix VectorIndex) {
	vs := clustered(2000, 32, 20, 1)
	fill(t, ix, vs)
	if ix.Len() != len(vs) {
		t.Fatalf("Len = %d", ix.Len())
	}
	for _, i := range []int{0, 17, 999, 1999} {
		hits := mustSearch(t, ix, vs[i], 10, nil)
		if len(hits) != 10 || hits[0].ID != chunkID(i) || hits[0].Score < 0.999 {
			t.Fatalf("self search %d: %v", i, hits)
		}
	}
	// Scaling a vector does not change its direction: Add normalises.
	scaled := make([]float32, 32)
	for j, x := range vs[5] {
		scaled[j] = 100 * x
	}
	if hits := mustSearch(t, ix, scaled, 1, nil); hits[0].ID != chunkID(5) || hits[0].Score > 1.0001 {
		t.Fatalf("scaled query: %v", hits)
	}
	// Replacing an id moves it.
	if err := ix.Add(chunkID(5), vs[6]); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(vs) {
		t.Fatalf("Len after replace = %d", ix.Len())
	}
	hits := mustSearch(t, ix, vs[6], 2, nil)
	got := ids(hits)
	sort.Strings(got)
	if strings.Join(got, ",") != chunkID(5)+","+chunkID(6) {
		t.Fatalf("after replace: %v", hits)
	}
	if hits := mustSearch(t, ix, vs[0], 5000, nil); len(hits) != len(vs) {
		t.Fatalf("k > n returned %d hits", len(hits))
	}
}

func testDelete(t *testing.T, ix VectorIndex) {
	vs := clustered(3000, 32, 30, 2)
	fill(t, ix, vs)
	flat := NewFlat()
	fill(t, flat, vs)
	for i := 0; i < len(vs); i += 3 {
		if !ix.Delete(chunkID(i)) || !flat.Delete(chunkID(i)) {
			t.Fatalf("delete %d", i)
		}
	}
	if ix.Delete(chunkID(0)) {
		t.Fatal("second delete reported true")
	}
	if ix.Len() != 2000 || ix.Tombstones() != 1000 {
		t.Fatalf("Len %d Tombstones %d", ix.Len(), ix.Tombstones())
	}
	check := func(stage string) {
		var got, want [][]string
		for i := 0; i < len(vs); i += 7 {
			hits := mustSearch(t, ix, vs[i], 10, nil)
			for _, h := range hits {
				var n int
				if _, err := fmtSscan(h.ID, &n); err == nil && n%3 == 0 {
					t.Fatalf("%s: deleted %s returned", stage, h.ID)
				}
			}
			if len(hits) != 10 {
				t.Fatalf("%s: %d hits", stage, len(hits))
			}
			got = append(got, ids(hits))
			exact, _ := flat.Search(vs[i], 10, nil)
			want = append(want, ids(exact))
		}
		if r := recallAt(got, want); r < 0.95 {
			t.Fatalf("%s: recall %.3f", stage, r)
		}
	}
	check("tombstones")
	ix.Compact()
	if ix.Len() != 2000 || ix.Tombstones() != 0 {
		t.Fatalf("after compact: Len %d Tombstones %d", ix.Len(), ix.Tombstones())
	}
	check("compacted")
	// Re-adding a deleted id brings it back.
	if err := ix.Add(chunkID(0), vs[0]); err != nil {
		t.Fatal(err)
	}
	if hits := mustSearch(t, ix, vs[0], 1, nil); hits[0].ID != chunkID(0) {
		t.Fatalf("re-added: %v", hits)
	}
}

func testFilter(t *testing.T, ix VectorIndex) {
	vs := clustered(4000, 32, 40, 3)
	fill(t, ix, vs)
	flat := NewFlat()
	fill(t, flat, vs)
	for _, mod := range []int{2, 50, 1000, 4001} {
		allow := func(id string) bool {
			var n int
			fmtSscan(id, &n)
			return n%mod == 0
		}
		allowed := (len(vs) + mod - 1) / mod
		var got, want [][]string
		for q := 0; q < 40; q++ {
			hits := mustSearch(t, ix, vs[q*97], 10, allow)
			if len(hits) != min(10, allowed) {
				t.Fatalf("mod %d: %d hits, %d allowed", mod, len(hits), allowed)
			}
			for _, h := range hits {
				if !allow(h.ID) {
					t.Fatalf("mod %d: disallowed %s returned", mod, h.ID)
				}
			}
			got = append(got, ids(hits))
			exact, _ := flat.Search(vs[q*97], 10, allow)
			want = append(want, ids(exact))
		}
		if r := recallAt(got, want); r < 0.95 {
			t.Fatalf("mod %d: filtered recall %.3f", mod, r)
		}
	}
}

func testConcurrent(t *testing.T, ix VectorIndex) {
	n := 1500
	if raceEnabled {
		n = 600
	}
	vs := clustered(n, 16, 10, 4)
	fill(t, ix, vs[:n/2])
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				allow := func(id string) bool { return id[len(id)-1] != '3' }
				if r == 0 {
					allow = nil
				}
				if _, err := ix.Search(vs[(i*31+r)%n], 5, allow); err != nil {
					t.Error(err)
					return
				}
				_ = ix.Len()
			}
		}(r)
	}
	for i := n / 2; i < n; i++ {
		if err := ix.Add(chunkID(i), vs[i]); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			ix.Delete(chunkID(i - n/2))
		}
		if i == n*3/4 {
			ix.Compact()
		}
	}
	close(stop)
	wg.Wait()
	if want := n - (n/2+4)/5; ix.Len() < want-1 || ix.Len() > want+1 {
		t.Fatalf("Len %d, want about %d", ix.Len(), want)
	}
}

// testBatch adds by AddBatch: it must match Add (replacing ids, refusing a
// batch with one bad vector as a whole) and search as well.
func testBatch(t *testing.T, ix VectorIndex) {
	vs := clustered(3000, 32, 30, 5)
	names := make([]string, len(vs))
	for i := range names {
		names[i] = chunkID(i)
	}
	if err := ix.AddBatch(names[:2000], vs[:2000]); err != nil {
		t.Fatal(err)
	}
	bad := [][]float32{vs[2000], {0, 0}}
	if err := ix.AddBatch(names[2000:2002], bad); engine.ErrorCode(err) != engine.CodeBadRequest || ix.Len() != 2000 {
		t.Fatalf("bad batch: %v, Len %d", err, ix.Len())
	}
	if err := ix.AddBatch(names[:1], nil); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("ids without vectors: %v", err)
	}
	// Re-adding ids in a batch replaces them.
	if err := ix.AddBatch(names[1500:], vs[1500:]); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(vs) || ix.Tombstones() != 500 {
		t.Fatalf("Len %d Tombstones %d", ix.Len(), ix.Tombstones())
	}
	flat := NewFlat()
	fill(t, flat, vs)
	var got, want [][]string
	for i := 0; i < len(vs); i += 11 {
		got = append(got, ids(mustSearch(t, ix, vs[i], 10, nil)))
		exact, _ := flat.Search(vs[i], 10, nil)
		want = append(want, ids(exact))
	}
	if r := recallAt(got, want); r < 0.95 {
		t.Fatalf("recall %.3f", r)
	}
}

func testErrors(t *testing.T, ix VectorIndex) {
	if err := ix.Add("a", []float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Add("b", []float32{1, 2}); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("dimension mismatch: %v", err)
	}
	if err := ix.Add("c", []float32{0, 0, 0}); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("zero vector: %v", err)
	}
	if _, err := ix.Search([]float32{1}, 3, nil); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("query dimension mismatch: %v", err)
	}
}
