package engine

import (
	"context"
	"regexp"
	"testing"
	"time"
)

func TestDeterministicIDs(t *testing.T) {
	draw := func(d *Deterministic) []string {
		var out []string
		for i := 0; i < 3; i++ {
			ctx := WithIDs(context.Background(), d.Scope())
			out = append(out, NewID(ctx, 24), NewID(ctx, 40), NewUUID(ctx), NowFrom(ctx, nil).Format(time.RFC3339))
		}
		return out
	}
	a, b := draw(NewDeterministic(0)), draw(NewDeterministic(0))
	seen := map[string]bool{}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d: %q != %q", i, a[i], b[i])
		}
		if i%4 != 3 && seen[a[i]] {
			t.Fatalf("draw %d repeats %q", i, a[i])
		}
		seen[a[i]] = true
	}
	if len(a[0]) != 24 || len(a[1]) != 40 || !uuid.MatchString(a[2]) {
		t.Fatalf("shapes: %q %q %q", a[0], a[1], a[2])
	}
	if a[3] != "2025-01-01T00:00:00Z" || a[7] != "2025-01-01T00:00:01Z" {
		t.Fatalf("clock: %q %q", a[3], a[7])
	}
	if x := draw(NewDeterministic(1)); x[0] == a[0] {
		t.Fatalf("another seed gave the same id %q", x[0])
	}

	ctx := context.Background()
	if NewID(ctx, 20) == NewID(ctx, 20) || NewUUID(ctx) == NewUUID(ctx) || !uuid.MatchString(NewUUID(ctx)) {
		t.Fatal("without a source ids must be random")
	}
	fixed := time.Unix(42, 0)
	if NowFrom(ctx, func() time.Time { return fixed }) != fixed {
		t.Fatal("without a source NowFrom must use the service clock")
	}
	det := WithIDs(ctx, NewDeterministic(0).Scope())
	if CreatedFrom(ctx, 7, fixed) != 7 || CreatedFrom(ctx, 0, fixed) != 42 || CreatedFrom(det, 7, fixed) != 42 {
		t.Fatal("CreatedFrom")
	}
}
