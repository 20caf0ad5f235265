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
// end is the call's end function, run by the timer and by that
// registration: it cancels the call's context (on the timeout) or waits
// until the ending parent has cancelled it (the parent's cancel reaches
// the call's context in the same call that started end), so the context is
// always done before a connection is aborted, and an error read off the
// aborted connection is worded from the context's cause, as before.
//
// It lives for one call in one process: nothing changes with several
// Hearth nodes.
type callAbort struct {
	parent context.Context
	end    func()

	mu sync.Mutex
	// pc is the connection in use, nil between uses.
	pc *h1Conn
	// ended is set once end ran: a connection taken later is aborted at
	// once.
	ended bool
	// stop undoes the registration on parent (nil: not made yet).
	stop func() bool
}

// use makes pc the connection in use, registering on parent first when
// this is the call's first use, and returns pc's stop function for the
// use (h1Conn.release).
func (a *callAbort) use(pc *h1Conn) func() bool {
	a.mu.Lock()
	if a.stop == nil && !a.ended {
		a.stop = context.AfterFunc(a.parent, a.end)
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

// fire aborts the connection in use; run by end once the call's context
// is done.
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

// done undoes the registration on parent once the call is over.
func (a *callAbort) done() {
	a.mu.Lock()
	stop := a.stop
	a.mu.Unlock()
	if stop != nil {
		stop()
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
