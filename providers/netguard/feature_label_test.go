package netguard

import (
	"context"
	"testing"
)

// TestLabelContext: a Label labels a context as WithFeature does, without
// allocating the boxed name again.
func TestLabelContext(t *testing.T) {
	ctx := context.Background()
	name := string([]byte("openai")) // a name known at run time, as a caller's
	l := NewLabel(name)
	if got := Feature(l.Context(ctx)); got != "openai" {
		t.Fatalf("label %q", got)
	}
	if got := Feature(Label{}.Context(WithFeature(ctx, "mcp"))); got != "" {
		t.Fatalf("zero label %q, want none", got)
	}
	with := testing.AllocsPerRun(100, func() { WithFeature(ctx, name) })
	label := testing.AllocsPerRun(100, func() { l.Context(ctx) })
	if label >= with {
		t.Fatalf("Label.Context allocates %.0f times, WithFeature %.0f: want fewer", label, with)
	}
}
