package server

import (
	"context"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// CPU turns (docs/security.md#cpu-turns): besides its admission slot, an
// admitted request needs one of a few turns per CPU to compute, shared
// fairly between clients by the rule of the slots (share.go). While
// marked waits (engine.Away: a model, a commit, a backoff) are short (an
// upstream that answers in well under a millisecond), a request keeps
// its turn through them, so the turns bound the requests in the
// scheduler's queue as a few slots would and the processors run out of
// work, and so poll the network, often; a watch gives away the turn of a
// holder whose wait has lasted a tick while others wait. Once the
// shortest recent wait is over turnLongWait (a model, even one that
// answers in a millisecond), every marked wait gives its turn back at
// once, so thousands of requests may wait on models, and poll breaks
// (below) keep the network polled. A holder that keeps its turn
// turnStale ticks without marking a wait (a wait Hearth does not mark: a
// slow client, long CPU work) loses it too and computes on without one,
// so no wait can stall the turns. The turns are this process's: each
// Hearth node shares its own.
//
// Poll breaks. Go's scheduler looks at the network only when a processor
// runs out of work, or every 10 ms: while turns go from each holder
// straight to the next waiter, nothing runs out, and a request whose
// model has answered (or a new request) is seen only when the turns'
// queue drains, on a saturated node every few milliseconds, however
// fairly the turns are shared. So while requests wait, a turn freed
// turnBreak or more after the last break starts a break: it and every
// turn freed meanwhile are held back until a goroutine blocked on a pipe
// the break writes to runs, which it can only once the scheduler has
// polled the network; by then every request whose wait ended has joined
// the fair queue, where a quiet client's comes first. A break lasts as
// long as the requests already running take to reach a wait, so it
// costs little, and turnBreak bounds how late a waiting request is seen.
// The pipe lives as long as the watch.

// Turns are for sharing: while one client alone has requests in flight
// (one key's load, however heavy) its requests take none, and the node
// runs as without turns. From the moment a second client has a request
// in flight until turnSolo after only one is left, every request takes a
// turn when it starts and at the end of each wait, so a client that
// sends one request at a time keeps the turns in force between its
// requests.

// Settings of the turns' watch.
const (
	turnTick  = time.Millisecond // how often the watch looks, while requests wait for a turn
	turnAway  = 2                // ticks a marked wait lasts before its turn is given away (a wait of 1-2 ticks)
	turnStale = 4                // ticks a turn may be held without a marked wait before it is taken back
	// Marked waits are sampled in windows of turnWindow; when the
	// shortest wait of the last window was longer than turnLongWait,
	// waits are long (a slow model) and a marked wait gives its turn
	// back at once instead of keeping it for the watch (kept, turns
	// would bound the requests in flight to such a model, and with them
	// the node's throughput: 2 turns per CPU served a tenth of the
	// requests a second of no turns with a 1 ms upstream). The shortest,
	// not the mean: on a saturated node even instant answers are seen
	// late, but never all of them.
	turnWindow   = 64
	turnLongWait = 300 * time.Microsecond
	turnCalm     = 200 // ticks without a waiter after which the watch stops
	// turnBreak is the most time turns go from holder to holder before
	// a poll break (see below).
	turnBreak = 250 * time.Microsecond
	// turnSolo is how long turns stay in force after the second-last
	// client's requests have ended.
	turnSolo = 100 * time.Millisecond
)

// turnGate is the node's CPU turns.
type turnGate struct {
	s    *share       // the turns: fair queue, no bound, no timeout
	tick atomic.Int64 // the watch's clock
	// gave counts turns given away by holders waiting on something
	// marked; took those taken back from holders that kept them
	// turnStale ticks (metrics, bench).
	gave, took atomic.Uint64
	// staleAfter is turnStale (tests raise it, to see that a marked
	// wait gives its turn away by itself).
	staleAfter int64
	// solo is turnSolo (tests change it).
	solo time.Duration
	// long is set while waits are long; n counts the samples of the
	// current window and shortest holds its shortest wait (ns).
	long        atomic.Bool
	n, shortest atomic.Int64

	// active counts each client's requests in flight (with or without a
	// turn); clients is its length; soloFrom is when the second-last
	// client left (unix ns; 0: never, or while two or more are there).
	amu      sync.Mutex
	active   map[shareID]int
	clients  atomic.Int32
	soloFrom atomic.Int64

	// brk is the poll breaks' pipe while the watch runs; lastBreak when
	// the last break ended (unix ns); breaks counts them.
	brk       atomic.Pointer[os.File]
	lastBreak atomic.Int64
	breaks    atomic.Uint64

	mu       sync.Mutex
	head     *turn // holders, oldest turn first
	tail     *turn
	watching bool
	scan     []turnSeen // the watch's scratch
}

// newTurnGate returns n turns (nil when n <= 0: no limit).
func newTurnGate(n int) *turnGate {
	if n <= 0 {
		return nil
	}
	g := &turnGate{s: newShare(n, math.MaxInt, 0, 0, 0), staleAfter: turnStale, solo: turnSolo, active: map[shareID]int{}}
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
	away       int64        // the tick a marked wait began at; -1 while computing
	leftAt     time.Time    // when the marked wait began
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
	t := &turn{g: g, ctx: ctx, id: id, away: -1}
	g.amu.Lock()
	if g.active[id]++; g.active[id] == 1 {
		if g.clients.Add(1) == 2 {
			g.soloFrom.Store(0)
		}
	}
	g.amu.Unlock()
	if g.shared() {
		t.take()
	}
	return t
}

// shared reports whether turns are in force: two clients or more have
// requests in flight, or had until less than turnSolo ago.
func (g *turnGate) shared() bool {
	if g.clients.Load() >= 2 {
		return true
	}
	from := g.soloFrom.Load()
	return from != 0 && time.Now().UnixNano()-from < int64(g.solo)
}

// leave counts out a request of t's client that ended.
func (g *turnGate) leave(id shareID) {
	g.amu.Lock()
	if g.active[id]--; g.active[id] <= 0 {
		delete(g.active, id)
		if g.clients.Add(-1) == 1 {
			g.soloFrom.Store(time.Now().UnixNano())
		}
	}
	g.amu.Unlock()
}

// Leave marks the start of a wait outside the process (engine.Turn): the
// turn is kept, unless the watch gives it away while others wait.
func (t *turn) Leave() {
	t.mu.Lock()
	if t.c == nil || t.away >= 0 {
		t.mu.Unlock()
		return
	}
	t.away, t.leftAt = t.g.tick.Load(), time.Now()
	t.mu.Unlock()
	if t.g.long.Load() {
		t.drop(func() bool { return t.away >= 0 }, &t.g.gave)
	}
}

// Return ends a wait (engine.Turn): the request computes on with its turn
// or, when the watch gave it away, waits for one. A request whose context
// ended computes on without one.
func (t *turn) Return() {
	t.mu.Lock()
	if !t.leftAt.IsZero() {
		t.g.sample(time.Since(t.leftAt))
		t.leftAt = time.Time{}
	}
	if t.c != nil {
		t.away = -1
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	if t.g.shared() {
		t.take()
	}
}

// sample counts a marked wait of d in the current window; the window's
// last sample decides whether waits are long.
func (g *turnGate) sample(d time.Duration) {
	for {
		m := g.shortest.Load()
		if m != 0 && m <= int64(d) || g.shortest.CompareAndSwap(m, int64(d)) {
			break
		}
	}
	if g.n.Add(1) == turnWindow {
		g.long.Store(g.shortest.Swap(0) > int64(turnLongWait))
		g.n.Store(0)
	}
}

// take waits for a turn, unless the request holds one, waits already or
// ended.
func (t *turn) take() {
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
	t.c, t.away = c, -1
	t.g.hold(t)
	t.mu.Unlock()
}

// end gives the turn back for good as the request ends; t may be nil.
func (t *turn) end() {
	if t == nil {
		return
	}
	t.mu.Lock()
	ended := t.done
	t.done = true
	t.mu.Unlock()
	t.drop(func() bool { return true }, nil)
	if !ended {
		t.g.leave(t.id)
	}
}

// drop gives the turn back when one is held and ok (called with t.mu
// held) agrees, counting it in n (when not nil) before the turn goes to
// the next in line, and reports whether it did.
func (t *turn) drop(ok func() bool, n *atomic.Uint64) bool {
	t.mu.Lock()
	c := t.c
	if c == nil || !ok() {
		t.mu.Unlock()
		return false
	}
	t.c, t.away = nil, -1
	t.g.unhold(t)
	t.mu.Unlock()
	if n != nil {
		n.Add(1)
	}
	t.g.pollBreak()
	t.g.s.release(c)
	return true
}

// pollBreak starts a poll break when requests wait for a turn and the
// last break ended turnBreak ago or more.
func (g *turnGate) pollBreak() {
	w := g.brk.Load()
	if w == nil || time.Now().UnixNano()-g.lastBreak.Load() < int64(turnBreak) || !g.s.pause() {
		return
	}
	if _, err := w.Write([]byte{1}); err != nil {
		// The watch has ended: no break.
		g.s.resume()
	}
}

// breakEnds ends each poll break as the scheduler, having polled the
// network, runs it; it returns (ending any break) when the pipe closes.
func (g *turnGate) breakEnds(r *os.File) {
	defer r.Close()
	var b [64]byte
	for {
		n, err := r.Read(b[:])
		if n > 0 {
			g.lastBreak.Store(time.Now().UnixNano())
			g.breaks.Add(1)
		}
		g.s.resume()
		if err != nil {
			return
		}
	}
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

// turnSeen is a holder as the watch saw it.
type turnSeen struct {
	t     *turn
	since int64
}

// run is the watch: every tick while requests wait for a turn, it gives
// away the turns of holders in a marked wait begun a tick ago or more,
// and takes back those held turnStale ticks or more; it stops after
// turnCalm ticks without a waiter.
func (g *turnGate) run() {
	tk := time.NewTicker(turnTick)
	defer tk.Stop()
	if r, w, err := os.Pipe(); err == nil {
		g.brk.Store(w)
		go g.breakEnds(r)
		defer func() {
			g.brk.Store(nil)
			w.Close()
		}()
	}
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
		after := g.staleAfter
		scan := g.scan[:0]
		for t := g.head; t != nil; t = t.next {
			scan = append(scan, turnSeen{t, t.since})
		}
		g.scan = scan
		g.mu.Unlock()
		for i, s := range scan {
			t, since := s.t, s.since
			if !t.drop(func() bool { return t.since == since && t.away >= 0 && now-t.away >= turnAway }, &g.gave) {
				t.drop(func() bool { return t.since == since && now-since >= after }, &g.took)
			}
			scan[i] = turnSeen{}
		}
	}
}
