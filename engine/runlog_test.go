package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// gatedStore holds every Update until gate is closed.
type gatedStore struct {
	*blob.Store
	gate    chan struct{}
	entered sync.Once
	in      chan struct{}
}

func (s *gatedStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	s.entered.Do(func() { close(s.in) })
	<-s.gate
	return s.Store.Update(ctx, fn)
}

// TestRunLogBackPressure: while the store is slow and the queue full,
// Record waits instead of dropping; every record is written once the store
// answers, in batches.
func TestRunLogBackPressure(t *testing.T) {
	_, bs := newAccounts(t)
	store := &gatedStore{Store: bs, gate: make(chan struct{}), in: make(chan struct{})}
	l := engine.NewRunLog(store, nil, nil)
	const n = 6000 // more than the queue (4096) and a batch (256) hold
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			l.Record(engine.RunRecord{ID: fmt.Sprintf("%08d", i), Owner: "ann", PipeID: "p", Status: engine.RunSuccess})
		}
	}()
	<-store.in
	select {
	case <-done:
		t.Fatal("all records were accepted while the store held the first batch: the queue is not bounded")
	case <-time.After(200 * time.Millisecond):
	}
	close(store.gate)
	<-done
	l.Flush()
	if d := l.Dropped(); d != 0 {
		t.Fatalf("%d records dropped under back-pressure", d)
	}
	got, cursor := 0, ""
	for {
		page, err := l.List(context.Background(), "ann", "", 500, cursor)
		if err != nil {
			t.Fatal(err)
		}
		got += len(page.Runs)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if got != n {
		t.Fatalf("%d of %d records written", got, n)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}
