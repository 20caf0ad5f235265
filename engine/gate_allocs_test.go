package engine_test

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestKeysetResolveCachedAllocations: once cached, resolving a run's key
// when neither the pipe nor the owner holds one (the server key serves)
// allocates nothing: the cache key is built in a stack buffer.
func TestKeysetResolveCachedAllocations(t *testing.T) {
	if engine.RaceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	_, store := newAccounts(t)
	ks, err := engine.NewKeysets(store, stubProviders{serverKeys: map[string]string{"openai": "server-key"}}, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	ks.UseCluster(&engine.Local{})
	ctx := context.Background()
	resolve := func() {
		if k, err := ks.Resolve(ctx, "openai", "", "pipe_1", "alice"); err != nil || k != "server-key" {
			t.Fatalf("Resolve = %q, %v", k, err)
		}
	}
	resolve()
	if n := testing.AllocsPerRun(100, resolve); n != 0 {
		t.Fatalf("a cached Resolve allocates %.0f times, want 0", n)
	}
	// A key set afterwards is still seen by the very next Resolve.
	if _, err := ks.Set(ctx, engine.PipeScope("pipe_1"), "openai", "pipe-key"); err != nil {
		t.Fatal(err)
	}
	if k, err := ks.Resolve(ctx, "openai", "", "pipe_1", "alice"); err != nil || k != "pipe-key" {
		t.Fatalf("after Set: Resolve = %q, %v", k, err)
	}
}

// TestPipeLookupCachedAllocations: a cached pipe costs nothing, by id
// (pipe keys) and by owner and name (user keys): every run shares it
// (TestRunsLeaveTheSharedPipeUnchanged in server checks runs leave it
// unchanged).
func TestPipeLookupCachedAllocations(t *testing.T) {
	if engine.RaceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	accounts, store := newAccounts(t)
	ps := engine.NewPipes(engine.PipesConfig{Store: store, Accounts: accounts, Cluster: &engine.Local{}})
	ctx := context.Background()
	name := "allocs"
	p, _, _, err := ps.Create(ctx, "alice", nil, &engine.PipeInput{Name: &name}, false)
	if err != nil {
		t.Fatal(err)
	}
	byID := func() {
		if got, err := ps.GetByID(ctx, p.ID); err != nil || got.ID != p.ID {
			t.Fatalf("GetByID = %v, %v", got, err)
		}
	}
	byName := func() {
		if got, err := ps.Lookup(ctx, "alice", name); err != nil || got.ID != p.ID {
			t.Fatalf("Lookup = %v, %v", got, err)
		}
	}
	byID()
	byName()
	if n := testing.AllocsPerRun(100, byID); n != 0 {
		t.Fatalf("a cached GetByID allocates %.0f times, want 0", n)
	}
	if n := testing.AllocsPerRun(100, byName); n != 0 {
		t.Fatalf("a cached Lookup allocates %.0f times, want 0", n)
	}
}
