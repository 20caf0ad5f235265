package engine

import (
	"context"
	"time"
)

// detachedCtx is a run's context without its cancellation, as
// context.WithoutCancel makes it: a run's thread and record are written
// even when its client has gone. It lives in the PreparedRun, so finishing
// a run does not allocate one. Unlike context.WithoutCancel's, it does
// not hide the parent from context.Cause (which the write path does not
// call).
type detachedCtx struct{ parent context.Context }

func (c *detachedCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *detachedCtx) Done() <-chan struct{}       { return nil }
func (c *detachedCtx) Err() error                  { return nil }
func (c *detachedCtx) Value(key any) any           { return c.parent.Value(key) }
func (c *detachedCtx) String() string              { return "engine.detachedCtx" }

// detach returns ctx without its cancellation, held in pr.
func (pr *PreparedRun) detach(ctx context.Context) context.Context {
	pr.detached.parent = ctx
	return &pr.detached
}

// createEmptyThread writes the new, empty thread of a run whose pipe does
// not store its conversation. The returned lb-thread-id names it, so the
// caller answers only after the write commits (docs/pipes-and-threads.md#threads).
func (pr *PreparedRun) createEmptyThread(ctx context.Context) error {
	if pr.signedThread {
		return nil // the id is the thread until it is first changed
	}
	ts, p, id := pr.r.threads, pr.Pipe, pr.ThreadID
	return ts.store.Update(ctx, func(tx Tx) error { return ts.putEmptyThread(ctx, tx, p, id) })
}

// putEmptyThread stores what appending no message to a new thread of
// pipe p stores (the thread and its index entry), without the append
// path's message bookkeeping.
func (ts *Threads) putEmptyThread(ctx context.Context, tx Tx, p *Pipe, id string) error {
	t := ts.newThread(ctx, p.Owner, id, nil)
	t.Pipe, t.PipeID = p.Name, p.ID
	if err := tx.Put(threadIdxKey(t.Owner, t), ""); err != nil {
		return err
	}
	return tx.Put(threadKey(t.Owner, t.ID), t)
}

// Admitter is RunRequest.Admit: an interface, so that a request can hand
// over a value it already holds instead of a closure made for it.
type Admitter interface {
	// AdmitPipe refuses the run of p, or lets it go on (nil).
	AdmitPipe(p *Pipe) error
}

// appendNewID appends n characters drawn as NewID draws them, without a
// string of their own: from the context's IDSource when it carries one,
// random base62 (the rejection sampling of randomWithPrefix) otherwise.
func appendNewID(ctx context.Context, b []byte, n int) []byte {
	if src := idsFrom(ctx); src != nil {
		return append(b, src.ID(n)...)
	}
	const accept = 4 * len(base62)
	var pool [64]byte
	for end := len(b) + n; len(b) < end; {
		want := min(len(pool), end-len(b)+n/16+2)
		readIDRandom(pool[:want])
		for _, c := range pool[:want] {
			if int(c) < accept && len(b) < end {
				b = append(b, base62[int(c)%len(base62)])
			}
		}
	}
	return b
}
