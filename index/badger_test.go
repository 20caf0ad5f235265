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

// TestManagerLargeVectorsOnBadger stores 1,500 vectors of 768 dimensions
// (3 KiB each; a store whose value threshold is over that, as with 4 KiB
// and 16 MiB memtables before, counts each in full towards Badger's
// transaction bound of 2.4 MiB) in one call: the manager cuts them into transactions that
// fit, and all are found after a reopen.
func TestManagerLargeVectorsOnBadger(t *testing.T) {
	ctx := context.Background()
	dataDir, bleveDir := t.TempDir(), t.TempDir()
	store := blob.New(blob.Options{Dir: dataDir})
	if err := store.Open(); err != nil {
		t.Fatal(err)
	}
	vs := clustered(1500, 768, 10, 3)
	m := newManager(t, store, bleveDir, Options{ExactThreshold: 100_000})
	if err := m.Add(ctx, "mem", chunksOf(vs, 0)); err != nil {
		t.Fatalf("add 1,500 vectors of 768 dimensions: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	store.Close()
	store = blob.New(blob.Options{Dir: dataDir})
	if err := store.Open(); err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	m = newManager(t, store, bleveDir, Options{ExactThreshold: 100_000})
	defer m.Close()
	got, err := m.SearchVector(ctx, "mem", vs[7], 1, nil)
	if err != nil || len(got) != 1 || got[0].ID != chunkID(7) {
		t.Fatalf("search after reopen: %v %v", got, err)
	}
	if s := memStats(t, m, "mem"); s.Vectors != 1500 {
		t.Fatalf("after reopen: %d vectors, want 1500", s.Vectors)
	}
}
