package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// heldStore counts the transactions that reach the real store and can
// hold the first one until released.
type heldStore struct {
	engine.Store
	updates atomic.Int32
	gate    chan struct{} // nil: no hold
	once    sync.Once
	entered chan struct{}
}

func (s *heldStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	s.updates.Add(1)
	if s.gate != nil {
		s.once.Do(func() { close(s.entered); <-s.gate })
	}
	return s.Store.Update(ctx, fn)
}

func newHeld(t *testing.T, hold bool) *heldStore {
	t.Helper()
	s := blob.New(blob.Options{InMemory: true})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g := &heldStore{Store: s, entered: make(chan struct{})}
	if hold {
		g.gate = make(chan struct{})
	}
	return g
}

// waitPending waits until n writes are queued behind the held commit.
func waitPending(t *testing.T, g *engine.GroupStore, n int) {
	t.Helper()
	for i := 0; g.Pending() < n; i++ {
		if i > 5000 {
			t.Fatalf("%d writes queued, want %d", g.Pending(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func present(t *testing.T, s engine.Store, key string) bool {
	t.Helper()
	ok := false
	if err := s.View(context.Background(), func(tx engine.Tx) (err error) { ok, err = tx.Exists(key); return }); err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestGroupStoreBatchesAndIsolates: while one commit is held, 40 writers
// queue; they commit together in one transaction, each caller returns
// only after it, and the one write that fails gets its own error while
// the others' writes land.
func TestGroupStoreBatchesAndIsolates(t *testing.T) {
	base := newHeld(t, true)
	g := engine.NewGroupStore(base, 0, 0)
	defer g.Close()
	ctx := context.Background()
	errs := make([]error, 41)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = g.Update(ctx, func(tx engine.Tx) error { return tx.Put("k/first", 1) }) })
	<-base.entered
	bad := errors.New("refused")
	for i := 1; i <= 40; i++ {
		wg.Go(func() {
			errs[i] = g.Update(ctx, func(tx engine.Tx) error {
				if err := tx.Put(fmt.Sprintf("k/%d", i), i); err != nil {
					return err
				}
				if i == 7 {
					return bad
				}
				return nil
			})
		})
	}
	waitPending(t, g, 40)
	close(base.gate)
	wg.Wait()
	for i, err := range errs {
		if want := error(nil); i == 7 {
			if !errors.Is(err, bad) {
				t.Fatalf("write 7: %v, want its own error", err)
			}
		} else if err != want {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	for i := 1; i <= 40; i++ {
		if got := present(t, base, fmt.Sprintf("k/%d", i)); got != (i != 7) {
			t.Fatalf("k/%d present=%v", i, got)
		}
	}
	// The held write, the batch of 40 that failed, then 40 alone.
	if n := base.updates.Load(); n != 1+1+40 {
		t.Fatalf("%d transactions, want 42", n)
	}
}

// TestGroupStoreOneBatch: without a failing write the 40 queued writes
// take one transaction.
func TestGroupStoreOneBatch(t *testing.T) {
	base := newHeld(t, true)
	g := engine.NewGroupStore(base, 0, 0)
	defer g.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Go(func() { g.Update(ctx, func(tx engine.Tx) error { return tx.Put("k/first", 1) }) })
	<-base.entered
	var failed atomic.Int32
	for i := range 40 {
		wg.Go(func() {
			if g.Update(ctx, func(tx engine.Tx) error { return tx.Put(fmt.Sprintf("k/%d", i), i) }) != nil {
				failed.Add(1)
			}
		})
	}
	waitPending(t, g, 40)
	close(base.gate)
	wg.Wait()
	if failed.Load() != 0 || base.updates.Load() != 2 {
		t.Fatalf("failed %d, transactions %d (want 0 and 2)", failed.Load(), base.updates.Load())
	}
	if w, c := g.Stats(); w != 41 || c != 2 {
		t.Fatalf("Stats = %d writes in %d transactions, want 41 in 2", w, c)
	}
}

// TestGroupStoreBackPressureAndClose: a full queue makes Update wait (here
// until its context ends); Close commits what was queued, and Update
// after Close writes straight through.
func TestGroupStoreBackPressureAndClose(t *testing.T) {
	base := newHeld(t, true)
	g := engine.NewGroupStore(base, 2, 0)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			if err := g.Update(ctx, func(tx engine.Tx) error { return tx.Put(fmt.Sprintf("q/%d", i), i) }); err != nil {
				t.Errorf("queued write %d: %v", i, err)
			}
		})
		if i == 0 {
			<-base.entered
		}
	}
	waitPending(t, g, 2)
	short, cancel := context.WithCancel(ctx)
	blocked := make(chan error)
	go func() { blocked <- g.Update(short, func(tx engine.Tx) error { return tx.Put("q/late", 1) }) }()
	select {
	case err := <-blocked:
		t.Fatalf("Update returned %v with the queue full", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	if err := <-blocked; !errors.Is(err, context.Canceled) {
		t.Fatalf("blocked write: %v, want context.Canceled", err)
	}
	closed := make(chan struct{})
	go func() { g.Close(); close(closed) }()
	close(base.gate)
	<-closed
	wg.Wait()
	for i := range 3 {
		if !present(t, base, fmt.Sprintf("q/%d", i)) {
			t.Fatalf("q/%d lost at Close", i)
		}
	}
	if present(t, base, "q/late") {
		t.Fatal("the cancelled write landed")
	}
	if err := g.Update(ctx, func(tx engine.Tx) error { return tx.Put("q/after", 1) }); err != nil || !present(t, base, "q/after") {
		t.Fatalf("Update after Close: %v", err)
	}
}
