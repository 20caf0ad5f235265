package index

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSeqReadsSeeEarlierChanges: every caller of a shared read gets a value
// read after its call began (it sees every change made before it asked),
// though concurrent callers share reads.
func TestSeqReadsSeeEarlierChanges(t *testing.T) {
	var g seqReads
	var stored, reads atomic.Uint64
	fn := func(context.Context) (uint64, error) {
		reads.Add(1)
		v := stored.Load()
		time.Sleep(time.Millisecond) // a round trip, so callers overlap
		return v, nil
	}
	const callers, calls = 16, 50
	var wg sync.WaitGroup
	errs := make(chan string, callers*calls)
	for range callers {
		wg.Go(func() {
			for range calls {
				want := stored.Add(1) // a change committed before the call
				got, err := g.read(context.Background(), time.Time{}, fn)
				if err != nil {
					errs <- err.Error()
				} else if got < want {
					errs <- "a caller got a value read before its call"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if n := reads.Load(); n == 0 || n > callers*calls {
		t.Fatalf("%d reads for %d calls", n, callers*calls)
	}
}

// TestSeqReadsSince: within one search (since set) a read that began at or
// after the search's start serves the next call; one that began before it
// does not.
func TestSeqReadsSince(t *testing.T) {
	var g seqReads
	var reads int
	fn := func(context.Context) (uint64, error) { reads++; return uint64(reads), nil }
	start := time.Now()
	if v, _ := g.read(context.Background(), start, fn); v != 1 || reads != 1 {
		t.Fatalf("first read: %d after %d reads", v, reads)
	}
	if v, _ := g.read(context.Background(), start, fn); v != 1 || reads != 1 {
		t.Fatalf("same search: %d after %d reads, want the shared read", v, reads)
	}
	if v, _ := g.read(context.Background(), time.Now(), fn); v != 2 || reads != 2 {
		t.Fatalf("later search: %d after %d reads, want a read of its own", v, reads)
	}
	if v, _ := g.read(context.Background(), time.Time{}, fn); v != 3 || reads != 3 {
		t.Fatalf("call outside a search: %d after %d reads, want a read of its own", v, reads)
	}
}
