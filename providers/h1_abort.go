package providers

import (
	"context"
	"sync"
)

// callAbort ends the lean client's blocked reads and writes of one call
// when the call ends: by its timeout (the caller's timer) or by the end of
// the context the call was made in. It stands in for a context.AfterFunc
// on the call's own context at every use of a connection, which made that
// context's done channel and children map (three allocations a call): the
// call registers once, on the context it was made in, and only when the
// lean client first uses a connection for it.
//
// The call's end (callState.end) is run by its timer and by that
// registration, both through ct (callTimer): it cancels the call's context
// (on the timeout) or waits until the ending parent has cancelled it (the
// parent's cancel reaches the call's context in the same call that
// started the end), so the context is always done before a connection is
// aborted, and an error read off the aborted connection is worded from the
// context's cause, as before.
//
// It lives for one call in one process: nothing changes with several
// Hearth nodes.
type callAbort struct {
	parent context.Context
	// ct is the call's timer, whose fromParent is registered on parent.
	ct *callTimer

	mu sync.Mutex
	// pc is the connection in use, nil between uses.
	pc *h1Conn
	// ended is set once end ran: a connection taken later is aborted at
	// once.
	ended bool
	// stop undoes the registration on parent (nil: not made yet).
	stop func() bool
	// undone is set by the first done.
	undone bool
}

// use makes pc the connection in use, registering on parent first when
// this is the call's first use, and returns pc's stop function for the
// use (h1Conn.release).
func (a *callAbort) use(pc *h1Conn) func() bool {
	a.mu.Lock()
	if a.stop == nil && !a.ended {
		a.stop = context.AfterFunc(a.parent, a.ct.parentFn)
	}
	a.pc = pc
	ended := a.ended
	a.mu.Unlock()
	pc.ab = a
	if ended {
		pc.abort()
	}
	return pc.releaseFn
}

// fire aborts the connection in use; run by the call's end once its
// context is done.
func (a *callAbort) fire() {
	a.mu.Lock()
	a.ended = true
	pc := a.pc
	a.mu.Unlock()
	if pc != nil {
		pc.abort()
	}
}

// release ends pc's use; it reports whether the call had not ended, so
// that pc was not and will not be aborted for it (the stop function of a
// context.AfterFunc).
func (a *callAbort) release(pc *h1Conn) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pc == pc {
		a.pc = nil
	}
	return !a.ended
}

// done undoes the registration on parent once the call is over, before
// the call's timer is released; a registration that already ran, or is
// running, keeps the timer out of the pool. Calls after the first do
// nothing.
func (a *callAbort) done() {
	a.mu.Lock()
	stop, first := a.stop, !a.undone
	a.undone = true
	a.mu.Unlock()
	if first && stop != nil && !stop() {
		a.ct.markSpent()
	}
}

// release is the stop function of pc's current use (callAbort.use).
func (pc *h1Conn) release() bool {
	a := pc.ab
	if a == nil {
		return false
	}
	pc.ab = nil
	return a.release(pc)
}
