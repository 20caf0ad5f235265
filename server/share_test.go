package server

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

var keyA, keyB, keyC = shareID{id: "key_a"}, shareID{id: "key_b"}, shareID{id: "key_c"}

// waitShare returns s with a hook that reports each request that starts
// to wait, and checks at the test's end that nothing is held or waits.
func waitShare(t *testing.T, slots, queue int, wait time.Duration, capKey, capIP int) (*share, chan shareID) {
	t.Helper()
	s := newShare(slots, queue, wait, capKey, capIP)
	waits := make(chan shareID, 64)
	s.waited = func(id shareID) { waits <- id }
	t.Cleanup(func() { noLeak(t, s) })
	return s, waits
}

// noLeak fails unless every slot was given back and no client is left.
func noLeak(t *testing.T, s *share) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held != 0 || s.waiting != 0 || len(s.clients) != 0 || len(s.ready) != 0 {
		t.Errorf("left over: %d held, %d waiting, %d clients, %d ready", s.held, s.waiting, len(s.clients), len(s.ready))
	}
}

// take acquires a slot that must be free.
func take(t *testing.T, s *share, id shareID) *shareClient {
	t.Helper()
	c, a := s.acquire(context.Background(), id)
	if a != admitted {
		t.Fatalf("%s refused a free slot: %d", id.id, a)
	}
	return c
}

// waiter is a request waiting in the background for a slot.
type waiter struct {
	id   shareID
	done chan admission
	c    *shareClient
}

// startWaiting starts a request of id and returns once it waits.
func startWaiting(t *testing.T, ctx context.Context, s *share, waits chan shareID, id shareID) *waiter {
	t.Helper()
	w := &waiter{id: id, done: make(chan admission, 1)}
	go func() {
		c, a := s.acquire(ctx, id)
		w.c = c
		w.done <- a
	}()
	if got := <-waits; got != id {
		t.Fatalf("%s waits, want %s", got.id, id.id)
	}
	return w
}

// outcome is w's answer, once it has one.
func (w *waiter) outcome() admission { return <-w.done }

// pending reports whether w still waits.
func (w *waiter) pending() bool {
	select {
	case a := <-w.done:
		w.done <- a
		return false
	default:
		return true
	}
}

// A key alone may take every slot; with none free its next request waits
// rather than being refused.
func TestShareOneKeyTakesEverySlot(t *testing.T) {
	s, waits := waitShare(t, 4, 8, time.Minute, 0, 0)
	var held []*shareClient
	for range 4 {
		held = append(held, take(t, s, keyA))
	}
	w := startWaiting(t, context.Background(), s, waits, keyA)
	s.release(held[0])
	if a := w.outcome(); a != admitted {
		t.Fatalf("the waiting request: %d", a)
	}
	held[0] = w.c
	for _, c := range held {
		s.release(c)
	}
}

// A freed slot goes to the waiting key that holds the fewest, even when
// another key's request has waited longer; between keys holding as many,
// to the one given a slot longest ago.
func TestShareFreedSlotGoesToKeyHoldingFewest(t *testing.T) {
	s, waits := waitShare(t, 2, 8, time.Minute, 0, 0)
	a1, a2 := take(t, s, keyA), take(t, s, keyA)
	ctx := context.Background()
	wa := startWaiting(t, ctx, s, waits, keyA) // first in line, but A holds 2
	wb := startWaiting(t, ctx, s, waits, keyB)
	s.release(a1)
	if a := wb.outcome(); a != admitted {
		t.Fatalf("B: %d", a)
	}
	if !wa.pending() {
		t.Fatal("A's waiter took the slot B, holding none, was owed")
	}
	// C waits after A. When A's last slot comes back, A and C hold none:
	// C, never given a slot, goes before A, which was given two.
	wc := startWaiting(t, ctx, s, waits, keyC)
	s.release(a2)
	if a := wc.outcome(); a != admitted || !wa.pending() {
		t.Fatalf("C: %d, A still waiting: %v", a, wa.pending())
	}
	s.release(wb.c) // B holds 0, C 1, A 0 and waits: A is next
	if a := wa.outcome(); a != admitted {
		t.Fatalf("A: %d", a)
	}
	s.release(wa.c)
	s.release(wc.c)
}

// Among keys that hold as many slots, the one waiting longest goes first.
func TestShareTieGoesToLongestWaiting(t *testing.T) {
	s, waits := waitShare(t, 1, 8, time.Minute, 0, 0)
	x := take(t, s, keyC)
	ctx := context.Background()
	wb := startWaiting(t, ctx, s, waits, keyB)
	wa := startWaiting(t, ctx, s, waits, keyA)
	s.release(x)
	if a := wb.outcome(); a != admitted || !wa.pending() {
		t.Fatalf("B (first to wait): %d; A still waiting: %v", a, wa.pending())
	}
	s.release(wb.c)
	if a := wa.outcome(); a != admitted {
		t.Fatalf("A: %d", a)
	}
	s.release(wa.c)
}

// Between keys holding as many slots, the one given a slot longest ago
// goes first, even when the other's requests have waited longer: with one
// slot, a key whose requests queued first does not keep it in turn after
// turn, the keys alternate.
func TestShareTieGoesToTheKeyServedLongestAgo(t *testing.T) {
	s, waits := waitShare(t, 1, 8, time.Minute, 0, 0)
	x := take(t, s, keyA)
	ctx := context.Background()
	a1 := startWaiting(t, ctx, s, waits, keyA)
	a2 := startWaiting(t, ctx, s, waits, keyA)
	b1 := startWaiting(t, ctx, s, waits, keyB)
	b2 := startWaiting(t, ctx, s, waits, keyB)
	// Each release leaves both keys holding none: the slot goes to the
	// key served longest ago, B (never), A, B, A.
	order := []*waiter{b1, a1, b2, a2}
	held := x
	for i, w := range order {
		s.release(held)
		if a := w.outcome(); a != admitted {
			t.Fatalf("step %d, %s: %d", i, w.id.id, a)
		}
		for _, o := range order[i+1:] {
			if !o.pending() {
				t.Fatalf("step %d: %s took a slot before %s", i, o.id.id, w.id.id)
			}
		}
		held = w.c
	}
	s.release(held)
}

// The fixed caps are off unless set; set, they refuse the key's request
// past the cap, waiting ones counted, and leave other keys alone.
func TestShareFixedCaps(t *testing.T) {
	if newShare(0, 0, time.Minute, 0, 0) != nil || newShare(-1, 8, time.Minute, 0, 0) != nil {
		t.Fatal("an admission with neither slots nor caps")
	}
	s, waits := waitShare(t, 3, 8, time.Minute, 2, 1)
	a1, a2 := take(t, s, keyA), take(t, s, keyA)
	if _, a := s.acquire(context.Background(), keyA); a != refusedCap {
		t.Fatalf("a key over its cap of 2: %d", a)
	}
	ip := shareID{ip: true, id: "192.0.2.1"}
	i1 := take(t, s, ip)
	if _, a := s.acquire(context.Background(), ip); a != refusedCap {
		t.Fatalf("an address over its cap of 1: %d", a)
	}
	// A waiting request counts toward its key's cap: B fills the last
	// slot, A's second request waits, its third is refused.
	s.release(a2)
	b1 := take(t, s, keyB)
	wa := startWaiting(t, context.Background(), s, waits, keyA)
	if _, a := s.acquire(context.Background(), keyA); a != refusedCap {
		t.Fatalf("a key holding one and waiting for one, cap 2: %d", a)
	}
	s.release(b1)
	if a := wa.outcome(); a != admitted {
		t.Fatalf("A's waiting request: %d", a)
	}
	s.release(wa.c)
	s.release(a1)
	s.release(i1)
}

// When the wait bound is hit the request is refused: a full queue at
// once, a wait that runs out after the wait; a request whose context
// ends stops waiting and frees its place.
func TestShareWaitBounds(t *testing.T) {
	s, waits := waitShare(t, 1, 1, time.Minute, 0, 0)
	x := take(t, s, keyA)
	ctx, cancel := context.WithCancel(context.Background())
	w := startWaiting(t, ctx, s, waits, keyA)
	if _, a := s.acquire(context.Background(), keyA); a != refusedQueue {
		t.Fatalf("a second waiter with a queue of 1: %d", a)
	}
	cancel()
	if a := w.outcome(); a != refusedCanceled {
		t.Fatalf("a waiter whose request ended: %d", a)
	}
	// Its place is free again, and the slot, given back, is free.
	w = startWaiting(t, context.Background(), s, waits, keyB)
	s.release(x)
	if a := w.outcome(); a != admitted {
		t.Fatalf("the next waiter: %d", a)
	}
	s.release(w.c)

	s, waits = waitShare(t, 1, 4, 10*time.Millisecond, 0, 0)
	x = take(t, s, keyA)
	if _, a := s.acquire(context.Background(), keyB); a != refusedTimeout {
		t.Fatalf("a wait with no slot given back: %d", a)
	}
	s.release(x)
	_ = waits
}

// A full queue makes room for a key with fewer requests: the newest
// waiter of the key with the most (at least two more) loses its place.
func TestShareFullQueueEvictsBusiestKey(t *testing.T) {
	s, waits := waitShare(t, 1, 2, time.Minute, 0, 0)
	x := take(t, s, keyA)
	ctx := context.Background()
	w1 := startWaiting(t, ctx, s, waits, keyA)
	w2 := startWaiting(t, ctx, s, waits, keyA)
	wb := startWaiting(t, ctx, s, waits, keyB) // A has 3, B none
	if a := w2.outcome(); a != refusedQueue || !w1.pending() {
		t.Fatalf("A's newest waiter: %d; A's first still waiting: %v", a, w1.pending())
	}
	// A (2) and B (1) differ by one: C, with none, takes A's place
	// again (A has 2 more), but then a D finds no key 2 ahead.
	wc := startWaiting(t, ctx, s, waits, keyC)
	if a := w1.outcome(); a != refusedQueue {
		t.Fatalf("A's waiter: %d", a)
	}
	if _, a := s.acquire(ctx, shareID{id: "key_d"}); a != refusedQueue {
		t.Fatalf("D with every key one ahead at most: %d", a)
	}
	s.release(x)
	if a := wb.outcome(); a != admitted || !wc.pending() {
		t.Fatalf("B (first to wait): %d", a)
	}
	s.release(wb.c)
	if a := wc.outcome(); a != admitted {
		t.Fatalf("C: %d", a)
	}
	s.release(wc.c)
}

// Under concurrent use no more than the slots are held at once, and every
// slot comes back.
func TestShareConcurrentUse(t *testing.T) {
	s := newShare(3, 1000, time.Minute, 0, 0)
	t.Cleanup(func() { noLeak(t, s) })
	var mu sync.Mutex
	held, most := 0, 0
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Go(func() {
			id := shareID{id: fmt.Sprint("key_", g%4), ip: g%3 == 0}
			for range 300 {
				c, a := s.acquire(context.Background(), id)
				if a != admitted {
					t.Errorf("refused: %d", a)
					return
				}
				mu.Lock()
				held++
				most = max(most, held)
				mu.Unlock()
				mu.Lock()
				held--
				mu.Unlock()
				s.release(c)
			}
		})
	}
	wg.Wait()
	if most > 3 {
		t.Fatalf("%d slots held at once, of 3", most)
	}
}

// A pause (the CPU turns' poll break) holds back every slot freed while
// it lasts, from the waiters and from newcomers alike; resume gives them
// out by the usual rule. Without waiters there is nothing to pause.
func TestSharePauseHoldsBackFreedSlots(t *testing.T) {
	s, waits := waitShare(t, 2, 8, time.Minute, 0, 0)
	if s.pause() {
		t.Fatal("paused with nobody waiting")
	}
	a1, a2 := take(t, s, keyA), take(t, s, keyA)
	ctx := context.Background()
	b := startWaiting(t, ctx, s, waits, keyB)
	if !s.pause() || s.pause() {
		t.Fatal("want one pause while key B waits")
	}
	s.release(a1)
	s.release(a2)
	c := startWaiting(t, ctx, s, waits, keyC) // two slots free, yet it waits
	if !b.pending() || !c.pending() || s.state().Held != 0 {
		t.Fatalf("during the pause: B waits %v, C waits %v, %+v", b.pending(), c.pending(), s.state())
	}
	s.resume()
	if b.outcome() != admitted || c.outcome() != admitted {
		t.Fatal("resume did not give the free slots to the waiters")
	}
	if st := s.state(); st.Held != 2 || st.Waiting != 0 {
		t.Fatalf("after resume: %+v", st)
	}
	s.release(b.c)
	s.release(c.c)
}
