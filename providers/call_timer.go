package providers

import (
	"sync"
	"time"
)

// callTimer is an upstream call's timeout timer, kept in a pool between
// calls: time.AfterFunc allocates a timer and binds its function on every
// call, where a pooled timer is only reset. Its functions, bound once when
// the timer is made, run the end of whichever call the timer times now:
// fire when the timeout passes, fromParent when the context the call was
// made in ends (callAbort registers it there).
//
// A timer goes back to the pool only when neither function can run again
// for the call that used it: every Stop of that use stopped the timer
// before it fired, no Reset found it fired, and the registration of
// fromParent was undone before it ran. A timer that ran its call's end, or
// might have, is left to the collector, so a late run can never end a
// later call.
//
// The pool lives in this process's memory: with several Hearth nodes each
// node pools its own timers; nothing in it is shared or needs to be.
type callTimer struct {
	t *time.Timer
	// parentFn is fromParent, bound once.
	parentFn func()

	mu sync.Mutex
	// call is the call being timed (nil in the pool).
	call callEnder
	// armed: the timer was last started and not stopped since.
	armed bool
	// spent: the timer fired, or may have, during this use.
	spent bool
}

// callEnder is what a callTimer ends: the call's state (callState.end).
// It must be comparable (a pointer): stop, reset and release check that
// the timer still times the call they come from.
type callEnder interface{ end() }

var callTimers = sync.Pool{New: func() any {
	ct := new(callTimer)
	ct.parentFn = ct.fromParent
	ct.t = time.AfterFunc(time.Hour, ct.fire)
	ct.t.Stop()
	return ct
}}

// startCallTimer runs call.end after d unless the timer is stopped first,
// as time.AfterFunc(d, call.end) does.
func startCallTimer(d time.Duration, call callEnder) *callTimer {
	ct := callTimers.Get().(*callTimer)
	ct.mu.Lock()
	ct.call, ct.armed, ct.spent = call, true, false
	ct.t.Reset(d)
	ct.mu.Unlock()
	return ct
}

// fire is the timer's function.
func (ct *callTimer) fire() { ct.endCall(true) }

// fromParent is the call's end registered on the context it was made in.
func (ct *callTimer) fromParent() { ct.endCall(false) }

// endCall marks the timer spent (and no longer armed when the timer
// itself fired) and ends the call it times, if any.
func (ct *callTimer) endCall(fired bool) {
	ct.mu.Lock()
	ct.spent = true
	if fired {
		ct.armed = false
	}
	call := ct.call
	ct.mu.Unlock()
	if call != nil {
		call.end()
	}
}

// markSpent keeps ct out of the pool: an undo of fromParent's
// registration came too late to keep it from running.
func (ct *callTimer) markSpent() {
	ct.mu.Lock()
	ct.spent = true
	ct.mu.Unlock()
}

// stop stops the timer for a while (a retry's backoff) or for good (the
// call's close, before release).
//
// stop, reset and release act only while ct times call: a late or second
// one from a call that already released ct (a stream's Close racing its
// Recv, a double close) does nothing, so it can neither stop, move nor
// pool a timer another call has taken since.
func (ct *callTimer) stop(call callEnder) {
	if ct.lockFor(call) {
		ct.stopLocked()
		ct.mu.Unlock()
	}
}

// lockFor locks ct and reports true while ct times call; otherwise (no
// timer, or one another call holds now) it leaves ct unlocked.
func (ct *callTimer) lockFor(call callEnder) bool {
	if ct == nil {
		return false
	}
	ct.mu.Lock()
	if ct.call != call {
		ct.mu.Unlock()
		return false
	}
	return true
}

func (ct *callTimer) stopLocked() {
	if ct.armed && !ct.t.Stop() {
		ct.spent = true
	}
	ct.armed = false
}

// reset starts the timer again for d, stopped or running (Timer.Reset).
func (ct *callTimer) reset(call callEnder, d time.Duration) {
	if !ct.lockFor(call) {
		return
	}
	if !ct.t.Reset(d) && ct.armed {
		ct.spent = true
	}
	ct.armed = true
	ct.mu.Unlock()
}

// release stops the timer for good once the call is over, and returns it
// to the pool when its function cannot run again for this call.
func (ct *callTimer) release(call callEnder) {
	if !ct.lockFor(call) {
		return
	}
	ct.stopLocked()
	reuse := !ct.spent
	ct.call = nil
	ct.mu.Unlock()
	if reuse {
		callTimers.Put(ct)
	}
}
