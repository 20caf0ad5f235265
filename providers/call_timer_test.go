package providers

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// funcEnder is a callEnder running a function (a pointer, so timers can
// tell their calls apart).
type funcEnder struct{ f func() }

func (e *funcEnder) end() { e.f() }

// endFunc is a callEnder running f.
func endFunc(f func()) *funcEnder { return &funcEnder{f} }

// TestCallTimerReuse: a timer released before it fired is the next call's
// timer, and it still ends that call on time.
func TestCallTimerReuse(t *testing.T) {
	if h1Race {
		t.Skip("the race detector drops pooled values at random")
	}
	firstCall := endFunc(func() { t.Error("the first call's end ran") })
	first := startCallTimer(time.Hour, firstCall)
	first.release(firstCall)
	ended := make(chan struct{})
	secondCall := endFunc(func() { close(ended) })
	second := startCallTimer(time.Millisecond, secondCall)
	if second != first {
		t.Fatal("a timer released before it fired was not reused")
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the reused timer did not end its call")
	}
	second.release(secondCall)
}

// BenchmarkCallTimerAllocs: a call's timeout timer, taken from the pool
// and released before it fires, costs no allocation a call (Go 1.26).
func BenchmarkCallTimerAllocs(b *testing.B) {
	idle := endFunc(func() {})
	b.ReportAllocs()
	for b.Loop() {
		startCallTimer(time.Hour, idle).release(idle)
	}
}

// TestCallTimerSpentNotReused: a timer that fired, or whose extension
// found it fired, never goes back to the pool, so a late run of its
// function cannot end a later call.
func TestCallTimerSpentNotReused(t *testing.T) {
	for _, extend := range []bool{false, true} {
		var runs atomic.Int32
		fired := make(chan struct{}, 1)
		call := endFunc(func() { runs.Add(1); fired <- struct{}{} })
		ct := startCallTimer(time.Millisecond, call)
		<-fired
		if extend {
			ct.reset(call, time.Hour)
		}
		ct.release(call)
		for range 20 {
			other := endFunc(func() {})
			next := startCallTimer(time.Hour, other)
			if next == ct {
				t.Fatalf("extend %v: a timer that fired went back to the pool", extend)
			}
			defer next.release(other)
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
	call := endFunc(func() { ended <- struct{}{} })
	ct := startCallTimer(time.Hour, call)
	ct.stop(call)
	ct.reset(call, time.Millisecond)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the timer started again after a stop did not end its call")
	}
	ct.release(call)
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
			time.AfterFunc(time.Minute, end.f).Stop()
		}
	})
	b.Run("pooled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			startCallTimer(time.Minute, end).release(end)
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
		call := endFunc(func() { ended <- struct{}{} })
		ct := startCallTimer(time.Hour, call)
		a := &callAbort{parent: parent, ct: ct}
		a.stop = context.AfterFunc(parent, ct.parentFn)
		cancel()
		if undoFirst {
			a.done() // the registration already fired: too late
		}
		<-ended
		a.done()
		ct.release(call)
		for range 20 {
			other := endFunc(func() {})
			next := startCallTimer(time.Hour, other)
			if next == ct {
				t.Fatalf("undo first %v: a timer whose call was ended by its parent went back to the pool", undoFirst)
			}
			defer next.release(other)
		}
	}
}

// TestCallTimerLateCallsIgnored: once a call released its timer and
// another call took it, the first call's late stop, reset and release
// (a stream closed twice, or closed while it was being read) change
// nothing: the second call still ends on time, once, and its timer is
// not handed to a third call while it runs.
func TestCallTimerLateCallsIgnored(t *testing.T) {
	if h1Race {
		t.Skip("the race detector drops pooled values at random")
	}
	first := endFunc(func() { t.Error("the first call's end ran") })
	ct := startCallTimer(time.Hour, first)
	ct.release(first)
	ended := make(chan struct{}, 2)
	second := endFunc(func() { ended <- struct{}{} })
	if startCallTimer(50*time.Millisecond, second) != ct {
		t.Fatal("a timer released before it fired was not reused")
	}
	ct.stop(first)
	ct.reset(first, time.Hour)
	ct.release(first)
	third := endFunc(func() {})
	if next := startCallTimer(time.Hour, third); next == ct {
		t.Fatal("a late release by the first call pooled the second call's timer")
	} else {
		defer next.release(third)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the first call's late stop or reset kept the second call from ending")
	}
	ct.release(second)
	if len(ended) != 0 {
		t.Fatal("the second call's end ran twice")
	}
}
