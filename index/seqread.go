package index

import (
	"context"
	"sync"
	"time"
)

// seqReads shares reads of one memory's stored change number between the
// searches that want one at the same time. Each caller gets the result of
// a read that began after its call did, so it sees every change committed
// before it asked (what a read of its own would give), while concurrent
// searches of a memory (and the vector and keyword halves of one hybrid
// search) cost one round trip between them instead of one each.
type seqReads struct {
	mu      sync.Mutex
	running bool      // a read is in flight
	next    *seqRound // the callers waiting for the read after it
	// last is the latest read that succeeded and when it began.
	last      uint64
	lastBegan time.Time
}

// seqRound is one shared read and its result.
type seqRound struct {
	done chan struct{}
	seq  uint64
	err  error
}

// seqReadTimeout bounds one shared read, which runs without any one
// caller's cancellation (callers stop waiting on their own context).
const seqReadTimeout = 30 * time.Second

// read returns the stored change number as read by fn, in a read that
// began after this call, or at or after since when since is not zero (the
// start of the search the call is part of).
func (g *seqReads) read(ctx context.Context, since time.Time, fn func(context.Context) (uint64, error)) (uint64, error) {
	g.mu.Lock()
	if !since.IsZero() && !g.lastBegan.IsZero() && !g.lastBegan.Before(since) {
		seq := g.last
		g.mu.Unlock()
		return seq, nil
	}
	if g.next == nil {
		g.next = &seqRound{done: make(chan struct{})}
	}
	r := g.next
	if !g.running {
		g.running, g.next = true, nil
		g.mu.Unlock()
		g.run(r, fn)
		return r.seq, r.err
	}
	g.mu.Unlock()
	select {
	case <-r.done:
		return r.seq, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// run performs r's read, then hands the callers that queued meanwhile to a
// read of their own on another goroutine, so no caller waits for reads
// that began after it.
func (g *seqReads) run(r *seqRound, fn func(context.Context) (uint64, error)) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), seqReadTimeout)
	r.seq, r.err = fn(ctx)
	cancel()
	close(r.done)
	g.mu.Lock()
	if r.err == nil && began.After(g.lastBegan) {
		g.last, g.lastBegan = r.seq, began
	}
	next := g.next
	g.next = nil
	g.running = next != nil
	g.mu.Unlock()
	if next != nil {
		go g.run(next, fn)
	}
}
