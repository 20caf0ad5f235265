package server

import (
	"context"
	"testing"
	"time"
)

// turnGateFor returns a gate of n turns whose watch never takes a turn
// back unless stale is set, and checks at the test's end that every turn
// was given back. A request of a third client, started first and so
// holding no turn, stays in flight until the end: turns are in force for
// every other request.
func turnGateFor(t *testing.T, n int, stale bool) *turnGate {
	t.Helper()
	g := newTurnGate(n)
	if !stale {
		g.staleAfter = 1 << 62
	}
	t.Cleanup(func() { noLeak(t, g.s) })
	by := g.start(context.Background(), shareID{id: "bystander"})
	if holdsTurn(by) {
		t.Fatal("a lone client's request took a turn")
	}
	t.Cleanup(by.end)
	return g
}

// startTurn starts a request of id in the background and returns a
// channel that yields its turn once it holds one.
func startTurn(g *turnGate, ctx context.Context, id shareID) chan *turn {
	ch := make(chan *turn, 1)
	go func() { ch <- g.start(ctx, id) }()
	return ch
}

// waitingTurns waits until n requests wait for a turn.
func waitingTurns(t *testing.T, g *turnGate, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); g.s.state().Waiting != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests wait for a turn, want %d", g.s.state().Waiting, n)
		}
	}
}

// holdsTurn reports whether tr holds a turn.
func holdsTurn(tr *turn) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.c != nil
}

func TestTurnOfAWaitingRequestGoesToTheClientHoldingFewest(t *testing.T) {
	g := turnGateFor(t, 2, false)
	ctx := context.Background()
	a1, a2 := g.start(ctx, keyA), g.start(ctx, keyA)
	a3 := startTurn(g, ctx, keyA)
	waitingTurns(t, g, 1)
	b1 := startTurn(g, ctx, keyB)
	waitingTurns(t, g, 2)
	// a1 waits on a model: the watch gives its turn to key B, which
	// holds none, although key A's third request waited longer.
	a1.Leave()
	b := <-b1
	if !holdsTurn(b) || holdsTurn(a1) || g.s.state().Waiting != 1 {
		t.Fatalf("key B holds %v, a1 %v, %d waiting; want B to hold a1's turn", holdsTurn(b), holdsTurn(a1), g.s.state().Waiting)
	}
	if g.gave.Load() != 1 || g.took.Load() != 0 {
		t.Fatalf("given away %d, taken back %d; want 1, 0", g.gave.Load(), g.took.Load())
	}
	// a1's answer arrives: it queues behind a3 for a turn.
	back := make(chan struct{})
	go func() { a1.Return(); close(back) }()
	waitingTurns(t, g, 2)
	b.end()
	a := <-a3
	if !holdsTurn(a) {
		t.Fatal("a3 did not get the turn key B gave back")
	}
	a2.end()
	<-back
	if !holdsTurn(a1) {
		t.Fatal("a1 did not get a turn back")
	}
	a.end()
	a1.end()
}

func TestTurnIsKeptThroughAWaitNobodyNeedsItFor(t *testing.T) {
	g := turnGateFor(t, 1, false)
	ctx := context.Background()
	tr := g.start(ctx, keyA)
	tr.Leave()
	tr.Leave()
	tr.Return()
	tr.Return()
	if st := g.s.state(); st.Held != 1 || !holdsTurn(tr) {
		t.Fatalf("%d turns held, tr holds %v: want the turn kept", st.Held, holdsTurn(tr))
	}
	tr.end()
	tr.end()
	tr.Return() // a request that ended takes no turn
	if st := g.s.state(); st.Held != 0 {
		t.Fatalf("%d turns held after end", st.Held)
	}
	if g.gave.Load()+g.took.Load() != 0 {
		t.Fatal("a turn nobody waited for was given away")
	}
}

func TestTurnHeldTooLongIsTakenBack(t *testing.T) {
	g := turnGateFor(t, 1, true)
	ctx := context.Background()
	// a blocks somewhere Hearth does not mark (a slow client, say) and
	// never gives its turn back by itself.
	a := g.start(ctx, keyA)
	b := <-startTurn(g, ctx, keyB)
	if !holdsTurn(b) || holdsTurn(a) {
		t.Fatalf("b holds %v, a holds %v: want the watch to take a's turn for b", holdsTurn(b), holdsTurn(a))
	}
	if n := g.took.Load(); n != 1 {
		t.Fatalf("%d turns taken back, want 1", n)
	}
	// a's next wait ends: it waits for the turn b holds.
	back := make(chan struct{})
	go func() { a.Leave(); a.Return(); close(back) }()
	waitingTurns(t, g, 1)
	b.end()
	<-back
	if !holdsTurn(a) {
		t.Fatal("a did not get the turn b gave back")
	}
	a.end()
}

func TestTurnWaitEndsWithTheRequest(t *testing.T) {
	g := turnGateFor(t, 1, false)
	a := g.start(context.Background(), keyA)
	ctx, cancel := context.WithCancel(context.Background())
	ch := startTurn(g, ctx, keyB)
	waitingTurns(t, g, 1)
	cancel()
	b := <-ch
	if holdsTurn(b) {
		t.Fatal("a request whose context ended took a turn")
	}
	b.end()
	a.end()
}

func TestNoTurnsWhenOff(t *testing.T) {
	if g := newTurnGate(0); g != nil {
		t.Fatal("0 turns made a gate")
	}
	var g *turnGate
	g.start(context.Background(), keyA).end() // nil gate, nil turn: no-ops
}

func TestTurnOfAWaitBegunBeforeAnyoneWaitedIsGivenAway(t *testing.T) {
	g := turnGateFor(t, 1, false)
	ctx := context.Background()
	a := g.start(ctx, keyA)
	a.Leave() // nobody waits: no timer, the turn is kept
	b := <-startTurn(g, ctx, keyB)
	if !holdsTurn(b) || holdsTurn(a) || g.gave.Load() != 1 {
		t.Fatalf("b holds %v, a holds %v, %d given away: want the watch to give a's turn to b", holdsTurn(b), holdsTurn(a), g.gave.Load())
	}
	b.end()
	a.Return()
	if !holdsTurn(a) {
		t.Fatal("a did not take the free turn back")
	}
	a.end()
}

func TestTurnsAreNotTakenWhileOneClientIsAlone(t *testing.T) {
	g := newTurnGate(1)
	g.solo = time.Hour
	t.Cleanup(func() { noLeak(t, g.s) })
	ctx := context.Background()
	// Key A alone: more requests than turns, none takes one, none waits.
	a1, a2, a3 := g.start(ctx, keyA), g.start(ctx, keyA), g.start(ctx, keyA)
	a1.Leave()
	a1.Return()
	if holdsTurn(a1) || holdsTurn(a2) || holdsTurn(a3) || g.s.state().Held != 0 || g.s.state().Waiting != 0 {
		t.Fatalf("key A alone: %+v", g.s.state())
	}
	// Key B comes: its request takes the free turn, and key A's requests
	// take turns at the end of their next wait, waiting for one.
	b := g.start(ctx, keyB)
	if !holdsTurn(b) {
		t.Fatal("key B's request took no turn while key A had requests in flight")
	}
	back := make(chan struct{})
	go func() { a1.Leave(); a1.Return(); close(back) }()
	waitingTurns(t, g, 1)
	b.end()
	<-back
	if !holdsTurn(a1) {
		t.Fatal("key A's request did not get the turn key B gave back")
	}
	a1.end()
	// Key B has left, key A is alone again: turns stay in force for
	// turnSolo, then key A's requests take none.
	a4 := g.start(ctx, keyA)
	if !holdsTurn(a4) {
		t.Fatal("a request right after the second client left took no turn")
	}
	a4.end()
	g.solo = 0
	a5 := g.start(ctx, keyA)
	if holdsTurn(a5) {
		t.Fatal("key A alone past turnSolo took a turn")
	}
	for _, tr := range []*turn{a2, a3, a5} {
		tr.end()
	}
	if n := g.clients.Load(); n != 0 || len(g.active) != 0 {
		t.Fatalf("%d clients counted after every request ended (%v)", n, g.active)
	}
}

// While requests wait for a turn, a turn freed turnBreak after the last
// poll break starts one: the turn is held back until the goroutine
// blocked on the break's pipe runs (after the scheduler polled the
// network), then goes to the next in line. The pipe closes with the
// watch, and no break outlives it.
func TestPollBreakHoldsTheTurnUntilTheNetworkIsPolled(t *testing.T) {
	g := turnGateFor(t, 1, false)
	ctx := context.Background()
	a := g.start(ctx, keyA)
	ch := startTurn(g, ctx, keyB)
	waitingTurns(t, g, 1)
	for deadline := time.Now().Add(10 * time.Second); g.brk.Load() == nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watch made no pipe for poll breaks")
		}
	}
	g.lastBreak.Store(0) // the last break was long ago
	a.end()
	b := <-ch
	if !holdsTurn(b) || g.breaks.Load() != 1 {
		t.Fatalf("b holds %v after %d breaks: want the turn after one break", holdsTurn(b), g.breaks.Load())
	}
	// A turn freed within turnBreak of the last break goes on at once
	// (the break is stamped an hour ahead, so however late this goroutine
	// runs the freed turn is still within turnBreak of it).
	a2 := startTurn(g, ctx, keyA)
	waitingTurns(t, g, 1)
	g.lastBreak.Store(time.Now().Add(time.Hour).UnixNano())
	b.end()
	if tr := <-a2; !holdsTurn(tr) || g.breaks.Load() != 1 {
		t.Fatalf("a2 holds %v after %d breaks: want the turn with no new break", holdsTurn(tr), g.breaks.Load())
	} else {
		tr.end()
	}
	// With nobody waiting the watch stops and closes the pipe.
	for deadline := time.Now().Add(10 * time.Second); g.brk.Load() != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watch kept its pipe with nobody waiting")
		}
	}
	g.s.mu.Lock()
	paused := g.s.paused
	g.s.mu.Unlock()
	if paused {
		t.Fatal("a break outlived the watch")
	}
}
