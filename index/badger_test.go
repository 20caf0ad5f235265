package index

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/blob"
)

// TestManagerOnBadger runs the persistence round trip on the real Badger
// store: transaction sizes, snapshot parts and reopen from disk.
func TestManagerOnBadger(t *testing.T) {
	ctx := context.Background()
	dataDir, bleveDir := t.TempDir(), t.TempDir()
	open := func() *blob.Store {
		s := blob.New(blob.Options{Dir: dataDir})
		if err := s.Open(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	vs := clustered(6000, 64, 20, 7)
	store := open()
	m := newManager(t, store, bleveDir, Options{ExactThreshold: 1000})
	if err := m.Add(ctx, "mem", chunksOf(vs, 0)); err != nil {
		t.Fatal(err)
	}
	want, err := m.SearchVector(ctx, "mem", vs[42], 10, nil)
	if err != nil || len(want) != 10 || want[0].ID != chunkID(42) {
		t.Fatalf("search: %v %v", want, err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	store.Close()

	store = open()
	defer store.Close()
	m = newManager(t, store, bleveDir, Options{ExactThreshold: 1000})
	defer m.Close()
	got, err := m.SearchVector(ctx, "mem", vs[42], 10, nil)
	if err != nil || !equalHits(got, want) {
		t.Fatalf("after reopen: %v %v, want %v", got, err, want)
	}
	if s := memStats(t, m, "mem"); !s.Load.FromSnapshot || s.Load.Replayed != 0 || s.Vectors != 6000 {
		t.Fatalf("reopen did not load the snapshot: %+v", s)
	}
	if err := m.DropMemory(ctx, "mem"); err != nil {
		t.Fatal(err)
	}
}
