package engine_test

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// countKeys counts the keys under prefix.
func countKeys(t *testing.T, s *blob.Store, prefix string) int {
	t.Helper()
	n := 0
	err := s.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan(prefix, "", func(string, []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSweepCacheLeftovers: leaving semantic mode drops its index (every
// stored key of it) and the former per-context lists and keeps the
// entries; turning the cache off deletes the entries too; a second sweep
// finds nothing.
func TestSweepCacheLeftovers(t *testing.T) {
	ctx := context.Background()
	r := newSemRig(t, engine.ResponseCacheConfig{})
	id := engine.SemanticIndexID(semModel)
	sweep := func(keep engine.CacheKeep) engine.CacheLeftovers {
		t.Helper()
		got, err := engine.SweepCacheLeftovers(ctx, r.store, nil, keep, r.idx.DropMemory)
		if err != nil || !got.Ran {
			t.Fatalf("sweep %+v: %+v %v", keep, got, err)
		}
		return got
	}
	// Semantic mode records its index and keeps it.
	if got := sweep(engine.CacheKeep{Entries: true, Index: id}); got != (engine.CacheLeftovers{Ran: true}) {
		t.Fatalf("first semantic start swept %+v", got)
	}
	semChat(t, r.model, "alice", userReq(qFrance))
	semChat(t, r.model, "bob", userReq(qNearMiss))
	if err := r.store.Update(ctx, func(tx engine.Tx) error { return tx.PutRaw("rcachesem/alice/0123", []byte(`{"items":[]}`)) }); err != nil {
		t.Fatal(err)
	}
	if got := sweep(engine.CacheKeep{Entries: true, Index: id}); got != (engine.CacheLeftovers{Buckets: 1, Ran: true}) {
		t.Fatalf("semantic restart swept %+v, want the old list only", got)
	}
	if n := semItems(t, r.idx); n != 2 {
		t.Fatalf("%d index items after a semantic restart, want 2", n)
	}
	// Exact mode: the index goes, every key of it, and the entries stay.
	if countKeys(t, r.store, "idx/"+id+"/") == 0 {
		t.Fatal("the semantic index stored nothing")
	}
	if got := sweep(engine.CacheKeep{Entries: true}); got != (engine.CacheLeftovers{Indexes: 1, Ran: true}) {
		t.Fatalf("exact start swept %+v, want the index", got)
	}
	if n := countKeys(t, r.store, "idx/"+id+"/"); n != 0 {
		t.Fatalf("%d keys of the dropped index left", n)
	}
	if n, err := r.cache.Len(ctx); err != nil || n != 2 {
		t.Fatalf("%d entries after leaving semantic mode (%v), want 2", n, err)
	}
	if got := sweep(engine.CacheKeep{Entries: true}); got != (engine.CacheLeftovers{Ran: true}) {
		t.Fatalf("second exact start swept %+v", got)
	}
	// Off: the entries go.
	if got := sweep(engine.CacheKeep{}); got != (engine.CacheLeftovers{Entries: 2, Ran: true}) {
		t.Fatalf("start with the cache off swept %+v, want 2 entries", got)
	}
	for _, p := range []string{"rcache/", "rcacheexp/", "rcachesem/", "rcacheidx/"} {
		if n := countKeys(t, r.store, p); n != 0 {
			t.Fatalf("%d keys left under %s", n, p)
		}
	}
}

// TestSweepCacheLeftoversNewEmbedder: a change of embedder drops the old
// model's index and keeps the new one's.
func TestSweepCacheLeftoversNewEmbedder(t *testing.T) {
	ctx := context.Background()
	r := newSemRig(t, engine.ResponseCacheConfig{})
	old := engine.SemanticIndexID(semModel)
	next := engine.SemanticIndexID(engine.ModelRef{Provider: "test", Model: "embed-2"})
	if old == next {
		t.Fatal("two embedders share an index id")
	}
	if _, err := engine.SweepCacheLeftovers(ctx, r.store, nil, engine.CacheKeep{Entries: true, Index: old}, r.idx.DropMemory); err != nil {
		t.Fatal(err)
	}
	semChat(t, r.model, "alice", userReq(qFrance))
	got, err := engine.SweepCacheLeftovers(ctx, r.store, nil, engine.CacheKeep{Entries: true, Index: next}, r.idx.DropMemory)
	if err != nil || got.Indexes != 1 {
		t.Fatalf("swept %+v %v, want the old index", got, err)
	}
	if n := countKeys(t, r.store, "idx/"+old+"/"); n != 0 {
		t.Fatalf("%d keys of the old index left", n)
	}
	if n := countKeys(t, r.store, "rcacheidx/"); n != 1 {
		t.Fatalf("%d index records, want the new one", n)
	}
}
