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
