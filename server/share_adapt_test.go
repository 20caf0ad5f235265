package server

import (
	"context"
	"testing"
	"time"
)

// The controller holds the limit through short contention, halves it
// towards the slots held once contention lasts, never goes below two
// slots per CPU, and climbs back to max by one and then by doubling
// steps once calm lasts.
func TestShareAdaptLimitController(t *testing.T) {
	a := newAdaptLimit(512, 2)
	if a.limit != 512 || a.floor != 4 {
		t.Fatalf("start: limit %d floor %d, want 512 and 4", a.limit, a.floor)
	}
	step := func(busy bool, held, want int) {
		t.Helper()
		if got := a.next(busy, held); got != want {
			t.Fatalf("next(busy %v, held %d) = %d, want %d", busy, held, got, want)
		}
	}
	for range adaptBusyRun - 1 {
		step(true, 256, 512) // a burst shorter than adaptBusyRun: held
	}
	step(false, 256, 512) // calm resets the run; max caps
	for range adaptBusyRun - 1 {
		step(true, 256, 512)
	}
	step(true, 256, 128) // lasting: half the slots held
	step(true, 300, 64)  // half the limit when more are held than it allows
	step(true, 20, 10)
	step(true, 10, 5)
	step(true, 5, 4) // the floor
	step(true, 0, 4)
	want := 4
	for i := 1; i <= adaptCalmRun; i++ {
		want++
		step(false, 4, want)
	}
	step(false, 4, want+2)
	step(false, 4, want+2+4)
	step(true, 4, want+6) // one contended interval changes nothing
	step(false, 4, want+7)
	for range 30 {
		a.next(false, 4)
	}
	step(false, 4, 512)
}

// An interval is contended only when enough of its wake-ups waited long
// for a CPU and goroutines still wait to run as it ends; few samples are
// calm, so an idle or I/O-bound process never lowers the limit.
func TestShareAdaptContended(t *testing.T) {
	for _, c := range []struct {
		slow, total, runnable uint64
		want                  bool
	}{
		{slow: 10, total: 100, runnable: 4, want: true},
		{slow: 5, total: 100, runnable: 4, want: false},  // 5 % slow: not more than the share
		{slow: 10, total: 100, runnable: 3, want: false}, // fewer waiting than two per CPU
		{slow: 10, total: 15, runnable: 40, want: false}, // too few samples
		{slow: 0, total: 0, runnable: 100, want: false},
	} {
		if got := contended(c.slow, c.total, c.runnable, 2); got != c.want {
			t.Errorf("contended(%d, %d, %d, 2 CPUs) = %v, want %v", c.slow, c.total, c.runnable, got, c.want)
		}
	}
}

// The scheduler signal counts wake-ups since its last read, slow ones
// among them, from the first histogram bucket at adaptSlowAfter.
func TestShareAdaptSchedSignal(t *testing.T) {
	s := newSchedSignal()
	h := s.sample[0].Value.Float64Histogram()
	if s.cut <= 0 || s.cut >= len(h.Counts) || h.Buckets[s.cut] < adaptSlowAfter.Seconds() || h.Buckets[s.cut-1] >= adaptSlowAfter.Seconds() {
		t.Fatalf("slow wake-ups start at bucket %d of %d", s.cut, len(h.Counts))
	}
	done := make(chan struct{})
	for range 1000 {
		go func() { done <- struct{}{} }()
		<-done
	}
	slow, total, _ := s.read()
	if slow > total {
		t.Fatalf("%d slow of %d wake-ups", slow, total)
	}
	var all uint64
	for _, n := range s.prev {
		all += n
	}
	if total == 0 || total > all {
		t.Fatalf("%d wake-ups since the last read, %d in all", total, all)
	}
}

// Under a lowered limit a request waits although slots of MaxConcurrent
// are free, a slot given back while more are held than the limit allows
// goes to no one, the next one goes to the waiting key holding fewest,
// and raising the limit hands the freed slots to the waiters.
func TestShareLimitBelowMaxQueuesQuietKeyFirst(t *testing.T) {
	s, waits := waitShare(t, 8, 16, time.Minute, 0, 0)
	var flood []*shareClient
	for range 3 {
		flood = append(flood, take(t, s, keyA))
	}
	s.mu.Lock()
	s.setLimit(2) // the CPU is contended: 2 slots in effect, 3 held
	s.mu.Unlock()
	ctx := context.Background()
	wa := startWaiting(t, ctx, s, waits, keyA)
	wb := startWaiting(t, ctx, s, waits, keyB) // the quiet key, after A
	s.release(flood[0])                        // 3 held, 2 allowed: the slot goes
	if st := s.state(); st.Held != 2 || st.Waiting != 2 || st.Limit != 2 {
		t.Fatalf("after the first release: %+v, want 2 held and 2 waiting", st)
	}
	s.release(flood[1]) // now one is free under the limit: B first
	if a := wb.outcome(); a != admitted {
		t.Fatalf("quiet key: %d", a)
	}
	if st := s.state(); st.Held != 2 || st.Waiting != 1 {
		t.Fatalf("after the second release: %+v, want 2 held and A's 1 waiting", st)
	}
	s.mu.Lock()
	s.setLimit(8) // calm again
	s.mu.Unlock()
	if a := wa.outcome(); a != admitted {
		t.Fatalf("flood key after the raise: %d", a)
	}
	for _, c := range []*shareClient{flood[2], wa.c, wb.c} {
		s.release(c)
	}
}

// Adaptive admission is off unless asked for, and with no limit there is
// nothing to adapt.
func TestShareAdaptiveOptIn(t *testing.T) {
	if s := newShare(8, 8, time.Minute, 0, 0); s.adaptive {
		t.Fatal("adaptive by default")
	}
	if s := newShare(8, 8, time.Minute, 0, 0).withAdaptive(true); !s.adaptive || s.ctl.max != 8 || s.limit != 8 {
		t.Fatalf("adaptive share: %+v", s.ctl)
	}
	if s := newShare(0, 8, time.Minute, 3, 0).withAdaptive(true); s.adaptive {
		t.Fatal("adaptive without a limit")
	}
	if newShare(0, 0, time.Minute, 0, 0).withAdaptive(true) != nil {
		t.Fatal("a share with nothing to limit")
	}
}
