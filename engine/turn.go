package engine

import (
	"context"
	"sync"
)

// Turn is a request's claim on one of the node's CPU turns: the server
// lets a few requests per CPU compute at once, shared fairly between
// clients (docs/security.md#cpu-turns). A request marks each wait outside
// the process (a model's answer, a commit, a backoff) so that, when the
// wait lasts while other requests want a turn, its turn goes to them.
type Turn interface {
	// Leave marks the start of a wait; Return its end, after which the
	// request computes on with its turn or, when the turn was given
	// away meanwhile, waits for one in the server's fair queue.
	Leave()
	Return()
}

// TurnKey is the context key of a request's Turn. A request's own context
// type may answer it (the server's request state does) instead of a
// context.WithValue layer.
type TurnKey struct{}

// WithTurn returns ctx carrying t.
func WithTurn(ctx context.Context, t Turn) context.Context {
	return context.WithValue(ctx, TurnKey{}, t)
}

// TurnOf returns ctx's turn, or nil when it carries none.
func TurnOf(ctx context.Context) Turn {
	t, _ := ctx.Value(TurnKey{}).(Turn)
	return t
}

// Away marks the start of a wait outside the process on ctx's turn, if it
// carries one, and returns the turn for Back.
func Away(ctx context.Context) Turn {
	t := TurnOf(ctx)
	if t != nil {
		t.Leave()
	}
	return t
}

// Back marks the end of the wait Away began; t may be nil.
func Back(t Turn) {
	if t != nil {
		t.Return()
	}
}

// WaitCount is a Turn that counts the waits marked on it: tests of code
// that marks its waits (Away, Back) put one in the context they pass.
type WaitCount struct {
	mu           sync.Mutex
	begun, ended int
}

// Leave counts a wait begun.
func (w *WaitCount) Leave() {
	w.mu.Lock()
	w.begun++
	w.mu.Unlock()
}

// Return counts a wait ended.
func (w *WaitCount) Return() {
	w.mu.Lock()
	w.ended++
	w.mu.Unlock()
}

// Counts returns the waits begun and ended so far.
func (w *WaitCount) Counts() (begun, ended int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.begun, w.ended
}
