package server

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// CPU turns (docs/security.md#cpu-turns): besides its admission slot, a
// request needs one of a few turns while it computes, shared fairly
// between clients by the same rule as the slots (share.go). It gives its
// turn back while it waits on a model, a commit or a retry's backoff
// (engine.Away), so thousands of requests may wait on slow models while
// only a few per CPU compete for the processor, and a quiet client's
// request goes ahead of a flooding client's queued ones. A request that
// holds a turn for turnStale ticks without giving it back (a wait Hearth
// does not mark: a slow client, a database round trip) loses it to the
// next in line and computes on without one, so no wait can stall the
// turns. The turns are this process's: each Hearth node shares its own.

// Settings of the turns' watch.
const (
	turnTick  = time.Millisecond // how often the watch looks, while requests wait for a turn
	turnStale = 2                // ticks a turn may be held before it is taken back
	turnCalm  = 200              // ticks without a waiter after which the watch stops
)

// turnGate is the node's CPU turns.
type turnGate struct {
	s    *share        // the turns: fair queue, no bound, no timeout
	tick atomic.Int64  // the watch's clock
	took atomic.Uint64 // turns taken back from a holder (metrics, bench)

	mu       sync.Mutex
	head     *turn // holders, oldest turn first
	tail     *turn
	watching bool
	stale    []*turn // the watch's scratch
}

// newTurnGate returns n turns (nil when n <= 0: no limit).
func newTurnGate(n int) *turnGate {
	if n <= 0 {
		return nil
	}
	g := &turnGate{s: newShare(n, math.MaxInt, 0, 0, 0)}
	g.s.waited = func(shareID) { g.watch() }
	return g
}

// turn is one request's claim on the gate: engine.Turn.
type turn struct {
	g   *turnGate
	ctx context.Context
	id  shareID

	mu         sync.Mutex
	c          *shareClient // the gate's client while a turn is held
	since      int64        // the tick the turn was taken at
	prev, next *turn        // in the gate's holders
	taking     bool         // a Return waits for a turn
	done       bool         // the request ended
}

// start returns the turn of a request of client id and takes it (waiting
// while ctx lasts); nil when g is nil.
func (g *turnGate) start(ctx context.Context, id shareID) *turn {
	if g == nil {
		return nil
	}
	t := &turn{g: g, ctx: ctx, id: id}
	t.Return()
	return t
}

// Return takes a turn when the request holds none (engine.Turn). A
// request whose context ended computes on without one.
func (t *turn) Return() {
	t.mu.Lock()
	if t.c != nil || t.taking || t.done {
		t.mu.Unlock()
		return
	}
	t.taking = true
	t.mu.Unlock()
	c, a := t.g.s.acquire(t.ctx, t.id)
	t.mu.Lock()
	t.taking = false
	if a != admitted {
		t.mu.Unlock()
		return
	}
	if t.done {
		t.mu.Unlock()
		t.g.s.release(c)
		return
	}
	t.c = c
	t.g.hold(t)
	t.mu.Unlock()
}

// Leave gives the turn back, if held (engine.Turn).
func (t *turn) Leave() { t.drop(false, -1) }

// end gives the turn back for good as the request ends; t may be nil.
func (t *turn) end() {
	if t != nil {
		t.drop(true, -1)
	}
}

// drop gives the turn back, and reports whether one was held; when
// since >= 0, only the turn taken at that tick (the watch taking back a
// stale one).
func (t *turn) drop(done bool, since int64) bool {
	t.mu.Lock()
	if done {
		t.done = true
	}
	c := t.c
	if c == nil || since >= 0 && t.since != since {
		t.mu.Unlock()
		return false
	}
	t.c = nil
	t.g.unhold(t)
	t.mu.Unlock()
	t.g.s.release(c)
	return true
}

// hold appends t to the holders at the current tick.
func (g *turnGate) hold(t *turn) {
	g.mu.Lock()
	t.since = g.tick.Load()
	t.prev, t.next = g.tail, nil
	if g.tail != nil {
		g.tail.next = t
	} else {
		g.head = t
	}
	g.tail = t
	g.mu.Unlock()
}

// unhold takes t out of the holders.
func (g *turnGate) unhold(t *turn) {
	g.mu.Lock()
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		g.head = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	} else {
		g.tail = t.prev
	}
	t.prev, t.next = nil, nil
	g.mu.Unlock()
}

// watch starts the watch, unless it runs.
func (g *turnGate) watch() {
	g.mu.Lock()
	if !g.watching {
		g.watching = true
		go g.run()
	}
	g.mu.Unlock()
}

// run is the watch: every tick while requests wait for a turn, it takes
// back the turns held for turnStale ticks or more; it stops after
// turnCalm ticks without a waiter.
func (g *turnGate) run() {
	tk := time.NewTicker(turnTick)
	defer tk.Stop()
	calm := 0
	for range tk.C {
		now := g.tick.Add(1)
		if g.s.state().Waiting == 0 {
			if calm++; calm >= turnCalm {
				g.mu.Lock()
				// A waiter that came meanwhile found watching set.
				if g.s.state().Waiting == 0 {
					g.watching = false
					g.mu.Unlock()
					return
				}
				g.mu.Unlock()
			}
			continue
		}
		calm = 0
		g.mu.Lock()
		stale := g.stale[:0]
		for t := g.head; t != nil && now-t.since >= turnStale; t = t.next {
			stale = append(stale, t)
		}
		g.stale = stale
		g.mu.Unlock()
		for i, t := range stale {
			t.mu.Lock()
			since := t.since
			t.mu.Unlock()
			if now-since >= turnStale && t.drop(false, since) {
				g.took.Add(1)
			}
			stale[i] = nil
		}
	}
}
