package engine_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// viewCounter counts the read transactions a store is asked for.
type viewCounter struct {
	engine.Store
	views atomic.Int32
}

func (s *viewCounter) View(ctx context.Context, fn func(engine.Tx) error) error {
	s.views.Add(1)
	return s.Store.View(ctx, fn)
}

// TestKeysetResolveReadsOnce: a run's key resolution looks at the pipe's
// and the owner's keysets in one read transaction, whichever holds the
// key (the per-request cost of the run path).
func TestKeysetResolveReadsOnce(t *testing.T) {
	_, base := newAccounts(t)
	store := &viewCounter{Store: base}
	ks, err := engine.NewKeysets(store, stubProviders{serverKeys: map[string]string{"openai": "server-key"}}, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	check := func(want string) {
		t.Helper()
		before := store.views.Load()
		got, err := ks.Resolve(ctx, "openai", "", "pipe_1", "alice")
		if err != nil || got != want {
			t.Fatalf("Resolve = %q, %v; want %q", got, err, want)
		}
		if n := store.views.Load() - before; n != 1 {
			t.Fatalf("Resolve read %d times, want once", n)
		}
	}
	check("server-key")
	ks.Set(ctx, engine.OwnerScope("alice"), "openai", "owner-key")
	check("owner-key")
	ks.Set(ctx, engine.PipeScope("pipe_1"), "openai", "pipe-key")
	check("pipe-key")
}

// sharedCluster is a Local that says it shares its store, as a cluster
// node does; stale makes its feed report not Fresh.
type sharedCluster struct {
	engine.Local
	stale atomic.Bool
}

func (*sharedCluster) Shared() bool  { return true }
func (c *sharedCluster) Fresh() bool { return !c.stale.Load() }

// TestKeysetCacheInvalidation: with the cache on (one node), repeated
// runs read no store, and a key set, replaced or deleted is what the very
// next Resolve returns; in cluster mode (shared store) the cache serves
// while the node's feed is fresh, and every Resolve reads the store while
// it is not.
func TestKeysetCacheInvalidation(t *testing.T) {
	_, base := newAccounts(t)
	store := &viewCounter{Store: base}
	ks, err := engine.NewKeysets(store, stubProviders{serverKeys: map[string]string{"openai": "server-key"}}, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	ks.UseCluster(&engine.Local{})
	ctx := context.Background()
	check := func(want string, reads int32) {
		t.Helper()
		before := store.views.Load()
		for range 3 {
			got, err := ks.Resolve(ctx, "openai", "", "pipe_1", "alice")
			if err != nil || got != want {
				t.Fatalf("Resolve = %q, %v; want %q", got, err, want)
			}
		}
		if n := store.views.Load() - before; n != reads {
			t.Fatalf("3 Resolves read the store %d times, want %d", n, reads)
		}
	}
	check("server-key", 1)
	check("server-key", 0)
	mustSet := func(scope, key string) {
		t.Helper()
		if _, err := ks.Set(ctx, scope, "openai", key); err != nil {
			t.Fatal(err)
		}
	}
	mustSet(engine.OwnerScope("alice"), "owner-key")
	check("owner-key", 1)
	mustSet(engine.PipeScope("pipe_1"), "pipe-key")
	check("pipe-key", 1)
	mustSet(engine.PipeScope("pipe_1"), "pipe-key-2") // rotation
	check("pipe-key-2", 1)
	if err := ks.Delete(ctx, engine.PipeScope("pipe_1"), "openai"); err != nil {
		t.Fatal(err)
	}
	check("owner-key", 1)
	mustSet(engine.PipeScope("pipe_1"), "pipe-key-3")
	check("pipe-key-3", 1)
	if err := base.Update(ctx, func(tx engine.Tx) error { return ks.DeleteScopeTx(tx, engine.PipeScope("pipe_1")) }); err != nil {
		t.Fatal(err)
	}
	check("owner-key", 1)
	// Another owner never sees alice's key, cached or not.
	if k, _ := ks.Resolve(ctx, "openai", "", "", "bob"); k != "server-key" {
		t.Fatalf("bob got %q", k)
	}

	shared, err := engine.NewKeysets(store, stubProviders{serverKeys: map[string]string{"openai": "server-key"}}, make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	cl := &sharedCluster{}
	shared.UseCluster(cl)
	for _, stale := range []bool{false, true} {
		cl.stale.Store(stale)
		before := store.views.Load()
		for range 3 {
			if k, err := shared.Resolve(ctx, "openai", "", "pipe_1", "alice"); err != nil || k != "owner-key" {
				t.Fatalf("shared: %q %v", k, err)
			}
		}
		want := int64(1)
		if stale {
			want = 3
		}
		if n := store.views.Load() - before; int64(n) != want {
			t.Fatalf("cluster mode, feed stale %v: 3 Resolves read the store %d times, want %d", stale, n, want)
		}
	}
}
