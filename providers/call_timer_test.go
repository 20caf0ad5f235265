package providers

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestCallTimerReuse: a timer released before it fired is the next call's
// timer (no allocation a call), and it still ends that call on time.
func TestCallTimerReuse(t *testing.T) {
	if h1Race {
		t.Skip("the race detector drops pooled values at random")
	}
	first := startCallTimer(time.Hour, func() { t.Error("the first call's end ran") })
	first.release()
	ended := make(chan struct{})
	second := startCallTimer(time.Millisecond, func() { close(ended) })
	if second != first {
		t.Fatal("a timer released before it fired was not reused")
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the reused timer did not end its call")
	}
	second.release()
	if n := testing.AllocsPerRun(100, func() { startCallTimer(time.Hour, func() {}).release() }); n > 0 {
		t.Fatalf("%.0f allocations a call's timer, want 0", n)
	}
}

// TestCallTimerSpentNotReused: a timer that fired, or whose extension
// found it fired, never goes back to the pool, so a late run of its
// function cannot end a later call.
func TestCallTimerSpentNotReused(t *testing.T) {
	for _, extend := range []bool{false, true} {
		var runs atomic.Int32
		fired := make(chan struct{}, 1)
		ct := startCallTimer(time.Millisecond, func() { runs.Add(1); fired <- struct{}{} })
		<-fired
		if extend {
			ct.reset(time.Hour)
		}
		ct.release()
		for range 20 {
			next := startCallTimer(time.Hour, func() {})
			if next == ct {
				t.Fatalf("extend %v: a timer that fired went back to the pool", extend)
			}
			defer next.release()
		}
		if n := runs.Load(); n != 1 {
			t.Fatalf("extend %v: the end ran %d times, want 1", extend, n)
		}
	}
}

// TestCallTimerStopReset: a timer stopped for a backoff and started again
// ends its call once, and is reused after.
func TestCallTimerStopReset(t *testing.T) {
	ended := make(chan struct{}, 2)
	ct := startCallTimer(time.Hour, func() { ended <- struct{}{} })
	ct.stop()
	ct.reset(time.Millisecond)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the timer started again after a stop did not end its call")
	}
	ct.release()
	if ct.end != nil || !ct.spent {
		t.Fatalf("after release: end set %v, spent %v", ct.end != nil, ct.spent)
	}
}

// BenchmarkCallTimer compares a call's timeout timer made and stopped
// with time.AfterFunc (as before the pool) with a pooled one.
func BenchmarkCallTimer(b *testing.B) {
	end := func() {}
	b.Run("afterfunc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			time.AfterFunc(time.Minute, end).Stop()
		}
	})
	b.Run("pooled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			startCallTimer(time.Minute, end).release()
		}
	})
}
