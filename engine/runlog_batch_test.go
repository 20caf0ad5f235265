package engine_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// countingStore counts Updates.
type countingStore struct {
	*blob.Store
	updates atomic.Int64
}

func (s *countingStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, fn)
}

func runRec(i int) engine.RunRecord {
	return engine.RunRecord{ID: fmt.Sprintf("%08d", i), Owner: "ann", PipeID: "p", Status: engine.RunSuccess, TotalTokens: 3}
}

// waitDrained waits until the writer has taken every queued record.
func waitDrained(t *testing.T, l *engine.RunLog) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); engine.RunLogQueued(l) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run log's writer never took its queued record")
		}
	}
}

// TestRunLogLingerJoinsLaterRecords: records that arrive after the writer
// took a batch's first one, within the linger window, are written in the
// same transaction, and a Flush ends the window at once.
func TestRunLogLingerJoinsLaterRecords(t *testing.T) {
	_, bs := newAccounts(t)
	store := &countingStore{Store: bs}
	l := engine.NewRunLogLinger(store, time.Hour)
	defer l.Close()
	l.Record(runRec(0))
	waitDrained(t, l) // the writer holds record 0 in an open batch
	for i := 1; i < 5; i++ {
		l.Record(runRec(i))
	}
	l.Flush()
	if n := store.updates.Load(); n != 1 {
		t.Fatalf("5 records within the window took %d transactions, want 1", n)
	}
	page, err := l.List(context.Background(), "ann", "", 50, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Runs) != 5 {
		t.Fatalf("%d of 5 records written", len(page.Runs))
	}
}

// TestRunLogCloseEndsLinger: Close writes the open batch without waiting
// for its window to end.
func TestRunLogCloseEndsLinger(t *testing.T) {
	_, bs := newAccounts(t)
	l := engine.NewRunLogLinger(bs, time.Hour)
	l.Record(runRec(0))
	waitDrained(t, l)
	closed := make(chan struct{})
	go func() { l.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close waited for the linger window")
	}
	var r engine.RunRecord
	if err := bs.View(context.Background(), func(tx engine.Tx) error { return tx.Get("run/ann/00000000", &r) }); err != nil {
		t.Fatalf("the lingering record was not written at Close: %v", err)
	}
}

// TestRunLogWritesWithoutFlush: with the default window a lone record is
// written by itself, with no flush and no other record to end the window.
func TestRunLogWritesWithoutFlush(t *testing.T) {
	_, bs := newAccounts(t)
	l := engine.NewRunLog(bs, nil, nil)
	defer l.Close()
	l.Record(runRec(7))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		page, err := l.List(context.Background(), "ann", "", 50, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Runs) == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a lone record was never written")
		}
	}
}
