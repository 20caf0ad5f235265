package engine

import "context"

// Turn is a request's claim on one of the node's CPU turns: the server
// lets a bounded number of requests compute at once, shared fairly
// between clients (docs/security.md#cpu-turns), and a request gives its
// turn back while it waits on something outside the process (a model's
// answer, a commit), so waiting never holds one.
type Turn interface {
	// Leave gives the turn back before a wait; Return takes one again
	// after it (waiting for it in the server's fair queue). Both are
	// no-ops when they change nothing.
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

// Away gives back ctx's turn, if it carries one, before a wait outside
// the process, and returns it for Back.
func Away(ctx context.Context) Turn {
	t, _ := ctx.Value(TurnKey{}).(Turn)
	if t != nil {
		t.Leave()
	}
	return t
}

// Back takes a turn again after the wait Away began; t may be nil.
func Back(t Turn) {
	if t != nil {
		t.Return()
	}
}
