package providers

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// endFunc is a callEnder running a function.
type endFunc func()

func (f endFunc) end() { f() }

// TestCallTimerReuse: a timer released before it fired is the next call's
// timer (no allocation a call), and it still ends that call on time.
func TestCallTimerReuse(t *testing.T) {
	if h1Race {
		t.Skip("the race detector drops pooled values at random")
	}
	first := startCallTimer(time.Hour, endFunc(func() { t.Error("the first call's end ran") }))
	first.release()
	ended := make(chan struct{})
	second := startCallTimer(time.Millisecond, endFunc(func() { close(ended) }))
	if second != first {
		t.Fatal("a timer released before it fired was not reused")
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the reused timer did not end its call")
	}
	second.release()
	if n := testing.AllocsPerRun(100, func() { startCallTimer(time.Hour, endFunc(func() {})).release() }); n > 0 {
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
		ct := startCallTimer(time.Millisecond, endFunc(func() { runs.Add(1); fired <- struct{}{} }))
		<-fired
		if extend {
			ct.reset(time.Hour)
		}
		ct.release()
		for range 20 {
			next := startCallTimer(time.Hour, endFunc(func() {}))
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
	ct := startCallTimer(time.Hour, endFunc(func() { ended <- struct{}{} }))
	ct.stop()
	ct.reset(time.Millisecond)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the timer started again after a stop did not end its call")
	}
	ct.release()
	if ct.call != nil || !ct.spent {
		t.Fatalf("after release: call set %v, spent %v", ct.call != nil, ct.spent)
	}
}

// BenchmarkCallTimer compares a call's timeout timer made and stopped
// with time.AfterFunc (as before the pool) with a pooled one.
func BenchmarkCallTimer(b *testing.B) {
	end := endFunc(func() {})
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

// TestCallTimerParentEndNotReused: a timer whose fromParent ran (the
// context the call was made in ended) never goes back to the pool, and
// neither does one whose registration was undone too late to stop it.
func TestCallTimerParentEndNotReused(t *testing.T) {
	for _, undoFirst := range []bool{false, true} {
		parent, cancel := context.WithCancel(context.Background())
		ended := make(chan struct{}, 1)
		ct := startCallTimer(time.Hour, endFunc(func() { ended <- struct{}{} }))
		a := &callAbort{parent: parent, ct: ct}
		a.stop = context.AfterFunc(parent, ct.parentFn)
		cancel()
		if undoFirst {
			a.done() // the registration already fired: too late
		}
		<-ended
		a.done()
		ct.release()
		for range 20 {
			next := startCallTimer(time.Hour, endFunc(func() {}))
			if next == ct {
				t.Fatalf("undo first %v: a timer whose call was ended by its parent went back to the pool", undoFirst)
			}
			defer next.release()
		}
	}
}
