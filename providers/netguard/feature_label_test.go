package netguard

import (
	"context"
	"testing"
)

// TestLabelContext: a Label labels a context as WithFeature does.
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
}

// BenchmarkLabelAllocs: labelling with a Label allocates fewer times than
// WithFeature (the name is boxed once, in NewLabel), and in the caller's
// memory (Label.In) not at all (Go 1.26).
func BenchmarkLabelAllocs(b *testing.B) {
	ctx := context.Background()
	name := string([]byte("openai"))
	l := NewLabel(name)
	var dst Labeled
	for _, c := range []struct {
		name string
		fn   func() context.Context
	}{
		{"WithFeature", func() context.Context { return WithFeature(ctx, name) }},
		{"Label.Context", func() context.Context { return l.Context(ctx) }},
		{"Label.In", func() context.Context { return l.In(&dst, ctx) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				labelSink = c.fn()
			}
		})
	}
}

// labelSink keeps BenchmarkLabelAllocs's contexts on the heap, as a
// call's are.
var labelSink context.Context
