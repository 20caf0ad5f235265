package index

import (
	"context"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// Limits of one group of Add calls applied together (see addQueue).
const (
	maxGroupChunks = 4096
	maxGroupBytes  = 32 << 20 // chunk texts and vectors
)

// addQueue turns the Add calls that wait on one memory's index into group
// writes: while one goroutine applies a change, the calls arriving behind
// it queue up, and the next of them applies all queued calls as one change
// (one run of vector transactions, one graph insertion, one Bleve batch,
// so one keyword segment to merge later instead of one per call). Several
// ingestion workers then parse, chunk and embed in parallel and funnel
// their index writes into batches.
//
// The queue is in this process's memory and only orders the writes of
// this node's index; with several nodes each node queues its own writes,
// and every group is one ordinary change of the store (in cluster mode,
// one or more change log entries the other nodes' replicas apply), so the
// result is the same as with one call at a time.
type addQueue struct {
	mu      sync.Mutex
	pending []*addReq
	running bool // a goroutine is applying a group
}

// addReq is one Add call in the queue. wake is closed when the call is
// done (err set) or when it is made the next leader (lead set).
type addReq struct {
	ctx    context.Context
	chunks []engine.IndexedChunk
	err    error
	lead   bool
	wake   chan struct{}
}

// do applies chunks through apply, grouped with the calls queued at the
// same time. A group that fails is applied again call by call, so each
// call gets its own error (a wrong dimension, a lost job lease) and the
// others still succeed; apply is idempotent (re-adding an id replaces it).
func (q *addQueue) do(ctx context.Context, chunks []engine.IndexedChunk, apply func(context.Context, []engine.IndexedChunk) error) error {
	r := &addReq{ctx: ctx, chunks: chunks, wake: make(chan struct{})}
	q.mu.Lock()
	q.pending = append(q.pending, r)
	lead := !q.running
	q.running = true
	q.mu.Unlock()
	if !lead {
		<-r.wake
		if !r.lead {
			return r.err
		}
	}
	// r is the first pending call: a new leader finds the queue empty, a
	// promoted one is the head of what was left.
	q.mu.Lock()
	group := q.takeGroup()
	q.mu.Unlock()
	if len(group) == 1 {
		r.err = apply(r.ctx, r.chunks)
	} else if err := apply(groupContext(group), mergeChunks(group)); err != nil {
		for _, g := range group {
			g.err = apply(g.ctx, g.chunks)
		}
	}
	q.mu.Lock()
	if len(q.pending) > 0 {
		// Hand over instead of draining the queue: the leader's own
		// caller (an ingestion job) is not held up by later arrivals.
		next := q.pending[0]
		next.lead = true
		close(next.wake)
	} else {
		q.running = false
	}
	q.mu.Unlock()
	for _, g := range group[1:] {
		close(g.wake)
	}
	return r.err
}

// takeGroup removes from the head of the queue the calls of the next
// group: at least one, then as many as fit maxGroupChunks and
// maxGroupBytes. Call it with q.mu held.
func (q *addQueue) takeGroup() []*addReq {
	n, chunks, bytes := 0, 0, 0
	for _, r := range q.pending {
		size := 0
		for _, c := range r.chunks {
			size += len(c.ID) + len(c.Text) + 4*len(c.Vector)
		}
		if n > 0 && (chunks+len(r.chunks) > maxGroupChunks || bytes+size > maxGroupBytes) {
			break
		}
		n, chunks, bytes = n+1, chunks+len(r.chunks), bytes+size
	}
	group := q.pending[:n:n]
	q.pending = append([]*addReq(nil), q.pending[n:]...)
	return group
}

func mergeChunks(group []*addReq) []engine.IndexedChunk {
	n := 0
	for _, g := range group {
		n += len(g.chunks)
	}
	out := make([]engine.IndexedChunk, 0, n)
	for _, g := range group {
		out = append(out, g.chunks...)
	}
	return out
}

// groupContext is the context a group is applied under: it is not
// cancelled by any one caller (the others still wait for the write), and
// its write check (engine.WithWriteCheck: an ingestion job's lease) runs
// the check of every call in the group.
func groupContext(group []*addReq) context.Context {
	ctxs := make([]context.Context, len(group))
	for i, g := range group {
		ctxs[i] = g.ctx
	}
	return engine.WithWriteCheck(context.WithoutCancel(group[0].ctx), func(tx engine.Tx) error {
		for _, c := range ctxs {
			if err := engine.CheckWrite(c, tx); err != nil {
				return err
			}
		}
		return nil
	})
}
