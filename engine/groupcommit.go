package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// GroupStore is a Store whose Update joins the writes of concurrent
// callers into one transaction (group commit): one committer goroutine
// takes every write waiting in a bounded queue (up to a batch's worth),
// runs them in order in one Update of the wrapped store, and then wakes
// each caller with its own result. A caller returns only after the
// transaction holding its write has committed, so what it answers with
// (a thread id, a message) is as durable as with a plain Update.
//
// There is no added wait: while one batch commits the next one gathers,
// so one client pays nothing and many clients share each commit. When
// the queue is full, Update blocks until there is room (back-pressure).
// Close commits what is queued, then Update falls back to the wrapped
// store.
//
// A batch that fails (one write returned an error, a conflict, a
// transaction too big) is run again one write per transaction, so each
// caller gets the result its write alone would have had; a write function
// may therefore run more than once, which Store.Update already allows
// (the Badger store retries conflicts the same way). A write function
// runs on the committer goroutine and must not call Update of the same
// GroupStore (it would wait for itself).
//
// Several nodes (cluster mode): the queue is this process's only; each
// node commits its own batches to the shared store through the Store
// interface, and a write is answered only after that commit, so nothing
// held here needs to be seen by another node. A crash loses only writes
// whose callers have not been answered.
type GroupStore struct {
	Store
	queue chan *groupWrite
	max   int
	done  chan struct{}

	mu     sync.RWMutex // held for reading while enqueueing; Close takes it to stop intake
	closed bool
	live   []*groupWrite // the committer's, reused by every batch

	writes, commits atomic.Int64
}

type groupWrite struct {
	ctx context.Context
	fn  func(Tx) error
	res chan error
}

// Default sizes of a GroupStore.
const (
	GroupQueueSize = 1024
	GroupBatchMax  = 128
)

// NewGroupStore wraps s. queue bounds the writes waiting (0: GroupQueueSize)
// and batch the writes in one transaction (0: GroupBatchMax).
func NewGroupStore(s Store, queue, batch int) *GroupStore {
	if queue <= 0 {
		queue = GroupQueueSize
	}
	if batch <= 0 {
		batch = GroupBatchMax
	}
	g := &GroupStore{Store: s, queue: make(chan *groupWrite, queue), max: batch, done: make(chan struct{})}
	go g.run()
	return g
}

// Update runs fn in the next group transaction and returns once that
// transaction has committed (or failed, with fn's own error).
func (g *GroupStore) Update(ctx context.Context, fn func(tx Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := groupWrites.Get().(*groupWrite)
	w.ctx, w.fn = ctx, fn
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		w.release()
		return g.Store.Update(ctx, fn)
	}
	// The wait for the batch is outside the process's CPU: the request's
	// turn goes back meanwhile (turn.go).
	t := Away(ctx)
	defer Back(t)
	select {
	case g.queue <- w:
	case <-ctx.Done():
		g.mu.RUnlock()
		w.release()
		return ctx.Err()
	}
	g.mu.RUnlock()
	// Once queued the write is committed whatever happens to ctx, so the
	// caller waits for the outcome rather than report a cancellation for
	// a write that then lands.
	err := <-w.res
	w.release()
	return err
}

// groupWrites recycles writes and their result channels: the committer
// sends a write's result once and never touches it after, so once the
// caller has received it the write can serve another Update.
var groupWrites = sync.Pool{New: func() any { return &groupWrite{res: make(chan error, 1)} }}

func (w *groupWrite) release() {
	w.ctx, w.fn = nil, nil
	groupWrites.Put(w)
}

// Stats returns the writes the group has run so far and the transactions
// it ran them in (this process's only; a failed batch's writes count once,
// in the transactions of their second try).
func (g *GroupStore) Stats() (writes, commits int64) { return g.writes.Load(), g.commits.Load() }

// Pending returns the number of writes waiting for a batch.
func (g *GroupStore) Pending() int { return len(g.queue) }

// Close commits the writes still queued and stops the committer; later
// Updates go straight to the wrapped store. It does not close that store.
func (g *GroupStore) Close() error {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		close(g.queue)
	}
	g.mu.Unlock()
	<-g.done
	return nil
}

func (g *GroupStore) run() {
	defer close(g.done)
	batch := make([]*groupWrite, 0, g.max)
	for first := range g.queue {
		batch = append(batch[:0], first)
	gather:
		for len(batch) < g.max {
			select {
			case w, ok := <-g.queue:
				if !ok {
					break gather
				}
				batch = append(batch, w)
			default:
				break gather
			}
		}
		g.commit(batch)
		clear(batch)
	}
}

// errGroupWrite marks a batch aborted by one of its writes.
var errGroupWrite = errors.New("a write of the group failed")

func (g *GroupStore) commit(batch []*groupWrite) {
	live := g.live[:0]
	defer func() { clear(live); g.live = live[:0] }()
	for _, w := range batch {
		if err := w.ctx.Err(); err != nil {
			w.res <- err
			continue
		}
		live = append(live, w)
	}
	switch len(live) {
	case 0:
		return
	case 1:
		w := live[0]
		g.count(1)
		w.res <- g.Store.Update(w.ctx, w.fn)
		return
	}
	err := g.Store.Update(context.WithoutCancel(live[0].ctx), func(tx Tx) error {
		for _, w := range live {
			if err := w.fn(tx); err != nil {
				return errGroupWrite
			}
		}
		return nil
	})
	if err == nil {
		g.count(int64(len(live)))
		for _, w := range live {
			w.res <- nil
		}
		return
	}
	for _, w := range live {
		g.count(1)
		w.res <- g.Store.Update(w.ctx, w.fn)
	}
}

func (g *GroupStore) count(writes int64) {
	g.writes.Add(writes)
	g.commits.Add(1)
}
