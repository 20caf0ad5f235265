package engine_test

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// serverKeysets is a local key set resolver whose server key for openai is
// "server-key".
func serverKeysets(tb testing.TB) *engine.Keysets {
	_, store := newAccounts(tb)
	ks, err := engine.NewKeysets(store, stubProviders{serverKeys: map[string]string{"openai": "server-key"}}, make([]byte, 32))
	if err != nil {
		tb.Fatal(err)
	}
	ks.UseCluster(&engine.Local{})
	return ks
}

// TestKeysetResolveCachedSeesNewKey: a cached Resolve answers the server
// key when neither the pipe nor the owner holds one, and a key set
// afterwards is seen by the very next Resolve.
func TestKeysetResolveCachedSeesNewKey(t *testing.T) {
	ks := serverKeysets(t)
	ctx := context.Background()
	for range 2 { // from the store, then from the cache
		if k, err := ks.Resolve(ctx, "openai", "", "pipe_1", "alice"); err != nil || k != "server-key" {
			t.Fatalf("Resolve = %q, %v", k, err)
		}
	}
	if _, err := ks.Set(ctx, engine.PipeScope("pipe_1"), "openai", "pipe-key"); err != nil {
		t.Fatal(err)
	}
	if k, err := ks.Resolve(ctx, "openai", "", "pipe_1", "alice"); err != nil || k != "pipe-key" {
		t.Fatalf("after Set: Resolve = %q, %v", k, err)
	}
}

// BenchmarkKeysetResolveCachedAllocs: once cached, resolving a run's key
// when neither the pipe nor the owner holds one (the server key serves)
// allocates nothing on Go 1.26: the cache key is built in a stack buffer
// (5 before).
func BenchmarkKeysetResolveCachedAllocs(b *testing.B) {
	ks := serverKeysets(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if k, err := ks.Resolve(ctx, "openai", "", "pipe_1", "alice"); err != nil || k != "server-key" {
			b.Fatalf("Resolve = %q, %v", k, err)
		}
	}
}

// cachedPipe is a pipes service with alice's pipe "allocs".
func cachedPipe(tb testing.TB) (*engine.Pipes, *engine.Pipe) {
	accounts, store := newAccounts(tb)
	ps := engine.NewPipes(engine.PipesConfig{Store: store, Accounts: accounts, Cluster: &engine.Local{}})
	name := "allocs"
	p, _, _, err := ps.Create(context.Background(), "alice", nil, &engine.PipeInput{Name: &name}, false)
	if err != nil {
		tb.Fatal(err)
	}
	return ps, p
}

// TestPipeLookupCached: a pipe is found by id and by owner and name, from
// the store and then from the cache.
func TestPipeLookupCached(t *testing.T) {
	ps, p := cachedPipe(t)
	ctx := context.Background()
	for range 2 {
		if got, err := ps.GetByID(ctx, p.ID); err != nil || got.ID != p.ID {
			t.Fatalf("GetByID = %v, %v", got, err)
		}
		if got, err := ps.Lookup(ctx, "alice", "allocs"); err != nil || got.ID != p.ID {
			t.Fatalf("Lookup = %v, %v", got, err)
		}
	}
}

// BenchmarkPipeLookupCachedAllocs: a cached pipe costs nothing on Go
// 1.26, by id (pipe keys) and by owner and name (user keys): every run
// shares it (TestRunsLeaveTheSharedPipeUnchanged in server checks runs
// leave it unchanged).
func BenchmarkPipeLookupCachedAllocs(b *testing.B) {
	ps, p := cachedPipe(b)
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		lookup func() (*engine.Pipe, error)
	}{
		{"by id", func() (*engine.Pipe, error) { return ps.GetByID(ctx, p.ID) }},
		{"by name", func() (*engine.Pipe, error) { return ps.Lookup(ctx, "alice", "allocs") }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := c.lookup(); err != nil || got.ID != p.ID {
					b.Fatalf("lookup = %v, %v", got, err)
				}
			}
		})
	}
}
