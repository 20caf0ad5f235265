package server

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// share admits requests to the MaxConcurrent slots, shared fairly between
// clients (an API key, or a client address for requests without a key).
// A request takes a free slot at once. When every slot is taken it waits,
// and each slot given back goes to the waiting client that holds the
// fewest slots; among clients holding as many, to the one given a slot
// longest ago (then the one waiting longest), so clients that hold the
// same (one slot, or none, at the moment each is freed) take turns rather
// than queue in arrival order behind the busiest: a client alone may
// use every slot, and under contention each gets its turn. Waiting is
// bounded in time (wait) and in requests (queue); when the queue is full a
// newcomer takes the place of the newest waiter of the client with the
// most requests, if that client has at least two more than the newcomer's.
// Optional fixed caps (capKey, capIP; 0 = off) refuse a client's requests
// past a number in flight, waiting ones included.
//
// The counts live in this process: with several Hearth nodes each shares
// its own slots, so a client spread over N nodes may hold slots on each.
type share struct {
	max           int // slots; 0: no limit (the caps alone apply)
	queue         int // requests that may wait at once
	wait          time.Duration
	capKey, capIP int

	mu      sync.Mutex
	held    int // slots taken
	waiting int
	seq     uint64
	served  uint64 // counts the slots given, to stamp shareClient.served
	clients map[shareID]*shareClient
	ready   shareHeap // clients with waiters, fewest held first
	spare   []*shareClient
	// waited, when set, is called as a request starts to wait (tests;
	// the CPU turns' watch: turn.go).
	waited func(shareID)
	// paused holds back the slots that come free, for waiters and
	// newcomers alike, until resume (the CPU turns' poll breaks).
	paused bool
}

// shareID names a client: an API key id, or a client address (ip).
type shareID struct {
	ip bool
	id string
}

// shareClient is one client's slots and waiting requests.
type shareClient struct {
	id         shareID
	held       int
	served     uint64 // share.served when it was last given a slot (0: never)
	n          int    // waiters
	head, tail *shareWaiter
	index      int // in share.ready; -1 when absent
}

// shareWaiter is a request waiting for a slot. done is closed when it is
// given a slot (granted) or its place (evicted).
type shareWaiter struct {
	c          *shareClient
	seq        uint64
	prev, next *shareWaiter
	done       chan struct{}
	granted    bool
	evicted    bool
}

// admission is how acquire ended.
type admission int

const (
	admitted        admission = iota
	refusedCap                // the client holds its fixed cap
	refusedQueue              // no slot and no place to wait
	refusedTimeout            // waited the whole wait
	refusedCanceled           // the request ended while it waited
)

// newShare returns the admission of n slots (<= 0: no limit) with the
// given waiting bounds and caps (<= 0: off); nil when nothing is limited.
func newShare(n, queue int, wait time.Duration, capKey, capIP int) *share {
	n = max(n, 0)
	if n == 0 && capKey <= 0 && capIP <= 0 {
		return nil
	}
	return &share{max: n, queue: max(queue, 0), wait: wait, capKey: max(capKey, 0), capIP: max(capIP, 0),
		clients: map[shareID]*shareClient{}}
}

// acquire takes a slot for client id, waiting for one while ctx lasts;
// the client it returns goes back to release. Any other answer than
// admitted holds nothing.
func (s *share) acquire(ctx context.Context, id shareID) (*shareClient, admission) {
	s.mu.Lock()
	c := s.clients[id]
	if c == nil {
		c = s.newClient(id)
	}
	if cp := s.capOf(id); cp > 0 && c.held+c.n >= cp {
		s.dropIfIdle(c)
		s.mu.Unlock()
		return nil, refusedCap
	}
	if s.max == 0 || s.held < s.max && !s.paused {
		s.held++
		c.held++
		s.served++
		c.served = s.served
		if c.index >= 0 {
			heap.Fix(&s.ready, c.index)
		}
		s.mu.Unlock()
		return c, admitted
	}
	if s.waiting >= s.queue && !s.evictFor(c) {
		s.dropIfIdle(c)
		s.mu.Unlock()
		return nil, refusedQueue
	}
	w := s.enqueue(c)
	s.mu.Unlock()
	if s.waited != nil {
		s.waited(id)
	}
	return s.await(ctx, w)
}

// await waits for w's slot until ctx ends or the wait runs out.
func (s *share) await(ctx context.Context, w *shareWaiter) (*shareClient, admission) {
	var expired <-chan time.Time
	if s.wait > 0 {
		t := time.NewTimer(s.wait)
		defer t.Stop()
		expired = t.C
	}
	why := refusedTimeout
	select {
	case <-w.done:
	case <-ctx.Done():
		why = refusedCanceled
	case <-expired:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case w.granted:
		// A slot given as the wait ended is kept: the handler sees an
		// ended context itself.
		return w.c, admitted
	case w.evicted:
		// The client may be gone and its record reused: not touched.
		return nil, refusedQueue
	}
	c := w.c
	s.unlink(w)
	s.dropIfIdle(c)
	return nil, why
}

// release gives back a slot of c: to the next waiter, or to the free ones.
func (s *share) release(c *shareClient) {
	s.mu.Lock()
	c.held--
	if c.index >= 0 {
		heap.Fix(&s.ready, c.index)
	}
	if len(s.ready) > 0 && !s.paused {
		s.grant()
	} else {
		s.held--
	}
	s.dropIfIdle(c)
	s.mu.Unlock()
}

// pause holds back every slot that comes free until resume, when requests
// wait and no pause is on; it reports whether it paused.
func (s *share) pause() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paused || len(s.ready) == 0 {
		return false
	}
	s.paused = true
	return true
}

// resume ends a pause: the free slots go to the waiters.
func (s *share) resume() {
	s.mu.Lock()
	s.paused = false
	for len(s.ready) > 0 && (s.max == 0 || s.held < s.max) {
		s.held++
		s.grant()
	}
	s.mu.Unlock()
}

// grant gives a slot (counted in held already) to the first waiter of the
// waiting client holding fewest.
func (s *share) grant() {
	next := s.ready[0]
	w := next.head
	s.unlink(w)
	next.held++
	s.served++
	next.served = s.served
	if next.index >= 0 {
		heap.Fix(&s.ready, next.index)
	}
	w.granted = true
	close(w.done)
}

func (s *share) capOf(id shareID) int {
	if id.ip {
		return s.capIP
	}
	return s.capKey
}

func (s *share) newClient(id shareID) *shareClient {
	var c *shareClient
	if n := len(s.spare); n > 0 {
		c, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		c = new(shareClient)
	}
	*c = shareClient{id: id, index: -1}
	s.clients[id] = c
	return c
}

// dropIfIdle forgets c once it holds and waits for nothing, so memory
// follows the active clients.
func (s *share) dropIfIdle(c *shareClient) {
	if c.held > 0 || c.n > 0 {
		return
	}
	delete(s.clients, c.id)
	if len(s.spare) < 64 {
		*c = shareClient{}
		s.spare = append(s.spare, c)
	}
}

// enqueue appends a waiter of c.
func (s *share) enqueue(c *shareClient) *shareWaiter {
	s.seq++
	w := &shareWaiter{c: c, seq: s.seq, done: make(chan struct{}), prev: c.tail}
	if c.tail != nil {
		c.tail.next = w
	} else {
		c.head = w
	}
	c.tail = w
	c.n++
	s.waiting++
	if c.index < 0 {
		heap.Push(&s.ready, c)
	}
	return w
}

// unlink takes w out of its client's waiters (and the client out of
// ready when none are left).
func (s *share) unlink(w *shareWaiter) {
	c := w.c
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		c.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		c.tail = w.prev
	}
	w.prev, w.next = nil, nil
	c.n--
	s.waiting--
	if c.n == 0 {
		heap.Remove(&s.ready, c.index)
	} else {
		heap.Fix(&s.ready, c.index)
	}
}

// evictFor frees a place in the full queue for a waiter of c: the newest
// waiter of the client with the most requests (held and waiting) loses
// its place, when that client has at least two more than c. It reports
// whether a place was freed.
func (s *share) evictFor(c *shareClient) bool {
	var most *shareClient
	for _, o := range s.ready {
		if most == nil || o.held+o.n > most.held+most.n {
			most = o
		}
	}
	if most == nil || most == c || most.held+most.n < c.held+c.n+2 {
		return false
	}
	w := most.tail
	s.unlink(w)
	w.evicted = true
	close(w.done)
	return true
}

// shareHeap orders the clients with waiters: fewest slots held first,
// then the one given a slot longest ago, then the one whose first waiter
// came first.
type shareHeap []*shareClient

func (h shareHeap) Len() int { return len(h) }
func (h shareHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.held != b.held {
		return a.held < b.held
	}
	if a.served != b.served {
		return a.served < b.served
	}
	return a.head.seq < b.head.seq
}
func (h shareHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *shareHeap) Push(x any) {
	c := x.(*shareClient)
	c.index = len(*h)
	*h = append(*h, c)
}
func (h *shareHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	c.index = -1
	return c
}

// state returns the share's counts now.
func (s *share) state() AdmissionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return AdmissionState{Max: s.max, Held: s.held, Waiting: s.waiting}
}
