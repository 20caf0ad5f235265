package index

import (
	"context"
	"math"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index/internal/memstore"
)

// TestVectorsRoundTrip: Vectors returns the stored vectors, nil for ids
// without one, and vectors read back and added to another memory are
// stored bit for bit the same and score the same, which is what a memory
// pack's import relies on (docs/memories-and-retrieval.md#memory-packs).
func TestVectorsRoundTrip(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, memstore.New(), t.TempDir(), Options{ExactThreshold: 500})
	defer m.Close()
	vs := clustered(200, 24, 6, 3)
	if err := m.Add(ctx, "src", chunksOf(vs, 0)); err != nil {
		t.Fatal(err)
	}
	ids := []string{chunkID(0), "missing", chunkID(199)}
	got, err := m.Vectors(ctx, "src", ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1] != nil || len(got[0]) != 24 || len(got[2]) != 24 {
		t.Fatalf("Vectors: %d entries, lens %d %v %d", len(got), len(got[0]), got[1], len(got[2]))
	}
	all := make([]string, len(vs))
	for i := range vs {
		all[i] = chunkID(i)
	}
	src, err := m.Vectors(ctx, "src", all)
	if err != nil {
		t.Fatal(err)
	}
	copied := make([]engine.IndexedChunk, len(src))
	for i, v := range src {
		copied[i] = engine.IndexedChunk{ID: all[i], Vector: v}
	}
	if err := m.Add(ctx, "dst", copied); err != nil {
		t.Fatal(err)
	}
	dst, err := m.Vectors(ctx, "dst", all)
	if err != nil {
		t.Fatal(err)
	}
	for i := range src {
		for j := range src[i] {
			if math.Float32bits(src[i][j]) != math.Float32bits(dst[i][j]) {
				t.Fatalf("chunk %d dim %d: stored %v, copy stored %v", i, j, src[i][j], dst[i][j])
			}
		}
	}
	a, err := m.SearchVector(ctx, "src", vs[7], 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.SearchVector(ctx, "dst", vs[7], 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 10 || len(a) != len(b) {
		t.Fatalf("hits: %d and %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("hit %d: source %+v, copy %+v", i, a[i], b[i])
		}
	}
	if _, err := m.Vectors(ctx, "../x", ids); err == nil {
		t.Fatal("a bad memory id was accepted")
	}
}
