package netguard

import (
	"context"
	"testing"
)

type otherKey struct{}

// TestLabelIn: a context labelled in the caller's memory reads as one
// labelled by Label.Context (the feature, the parent's values, its
// cancellation).
func TestLabelIn(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "v"))
	l := NewLabel("openai")
	var dst Labeled
	ctx := l.In(&dst, parent)
	if Feature(ctx) != "openai" || Feature(ctx) != Feature(l.Context(parent)) || ctx.Value(otherKey{}) != "v" {
		t.Fatalf("feature %q, other %v", Feature(ctx), ctx.Value(otherKey{}))
	}
	child, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cancel()
	<-child.Done()
	if ctx.Err() != context.Canceled || child.Err() != context.Canceled {
		t.Fatalf("errors %v, %v", ctx.Err(), child.Err())
	}
	if got := Feature(Label{}.In(&dst, parent)); got != Feature(Label{}.Context(parent)) {
		t.Fatalf("zero label: %q", got)
	}
}

// TestLabelInAllocations: labelling a context in the caller's memory
// allocates nothing. One of the few allocation tests: Label.In exists only
// so that every upstream call is labelled for the egress guard without an
// allocation, and the zero is structural (the labelled context is the
// caller's Labeled), not a measured figure; it runs without the race
// detector only (make test-norace).
func TestLabelInAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector moves values to the heap; make test-norace runs this test")
	}
	parent := context.WithValue(context.Background(), otherKey{}, "v")
	l := NewLabel("openai")
	var dst Labeled
	if n := testing.AllocsPerRun(100, func() { _ = l.In(&dst, parent) }); n != 0 {
		t.Fatalf("Label.In allocates %.0f times, want 0", n)
	}
}
