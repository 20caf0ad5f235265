package providers

import (
	"sync"
	"time"
)

// callTimer is an upstream call's timeout timer, kept in a pool between
// calls: time.AfterFunc allocates a timer and binds its function on every
// call, where a pooled timer is only reset. Its function, bound once when
// the timer is made, runs the end of whichever call the timer times now.
//
// A timer goes back to the pool only when its function cannot run again
// for the call that used it: every Stop of that use stopped the timer
// before it fired, and no Reset found it fired. A timer that fired, or
// might have, is left to the collector, so a late run can never end a
// later call.
//
// The pool lives in this process's memory: with several Hearth nodes each
// node pools its own timers; nothing in it is shared or needs to be.
type callTimer struct {
	t *time.Timer

	mu sync.Mutex
	// end is the end of the call being timed (nil in the pool).
	end func()
	// armed: the timer was last started and not stopped since.
	armed bool
	// spent: the timer fired, or may have, during this use.
	spent bool
}

var callTimers = sync.Pool{New: func() any {
	ct := new(callTimer)
	ct.t = time.AfterFunc(time.Hour, ct.fire)
	ct.t.Stop()
	return ct
}}

// startCallTimer runs end after d unless the timer is stopped first, as
// time.AfterFunc(d, end) does.
func startCallTimer(d time.Duration, end func()) *callTimer {
	ct := callTimers.Get().(*callTimer)
	ct.mu.Lock()
	ct.end, ct.armed, ct.spent = end, true, false
	ct.t.Reset(d)
	ct.mu.Unlock()
	return ct
}

// fire is the timer's function.
func (ct *callTimer) fire() {
	ct.mu.Lock()
	ct.spent, ct.armed = true, false
	end := ct.end
	ct.mu.Unlock()
	if end != nil {
		end()
	}
}

// stop stops the timer for a while (a retry's backoff).
func (ct *callTimer) stop() {
	ct.mu.Lock()
	ct.stopLocked()
	ct.mu.Unlock()
}

func (ct *callTimer) stopLocked() {
	if ct.armed && !ct.t.Stop() {
		ct.spent = true
	}
	ct.armed = false
}

// reset starts the timer again for d, stopped or running (Timer.Reset).
func (ct *callTimer) reset(d time.Duration) {
	ct.mu.Lock()
	if !ct.t.Reset(d) && ct.armed {
		ct.spent = true
	}
	ct.armed = true
	ct.mu.Unlock()
}

// release stops the timer for good once the call is over, and returns it
// to the pool when its function cannot run again for this call. The call
// must not use ct afterwards.
func (ct *callTimer) release() {
	ct.mu.Lock()
	ct.stopLocked()
	reuse := !ct.spent
	ct.end = nil
	ct.mu.Unlock()
	if reuse {
		callTimers.Put(ct)
	}
}
