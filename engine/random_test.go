package engine

import (
	"context"
	"strings"
	"testing"
)

// TestRandomStringShapeAndSpread checks lengths, the alphabet and that
// every base62 character is drawn with about equal weight (a modulo bias
// or a stuck byte would push one bucket far off its expected count).
func TestRandomStringShapeAndSpread(t *testing.T) {
	for _, n := range []int{0, 1, 8, 16, 24, 32, 63, 64, 65, 200} {
		if s := RandomString(n); len(s) != n {
			t.Fatalf("RandomString(%d) has length %d", n, len(s))
		}
	}
	counts := map[rune]int{}
	const draws, n = 4000, 62
	for range draws {
		for _, c := range RandomString(n) {
			if !strings.ContainsRune(base62, c) {
				t.Fatalf("character %q is not base62", c)
			}
			counts[c]++
		}
	}
	if len(counts) != len(base62) {
		t.Fatalf("%d distinct characters drawn, want %d", len(counts), len(base62))
	}
	// Expected 4000 per character; a binomial's sd is about 63, so ±500
	// (8 sd) only fails on a real bias (byte%62 over 0..255 gives the
	// first 8 characters 5/4 of the weight: +1000).
	for c, got := range counts {
		if got < draws-500 || got > draws+500 {
			t.Fatalf("character %q drawn %d times, want about %d", c, got, draws)
		}
	}
}

// BenchmarkIDAllocs: an id is one allocation, its string, none per
// character (Go 1.26).
func BenchmarkIDAllocs(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		id   func() string
	}{
		{"RandomString", func() string { return RandomString(24) }},
		{"NewPrefixedID", func() string { return NewPrefixedID(ctx, "req_", 20) }},
		{"NewUUID", func() string { return NewUUID(ctx) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = c.id()
			}
		})
	}
}

// TestNewPrefixedID: the prefix, then n id characters, random or from the
// context's deterministic source.
func TestNewPrefixedID(t *testing.T) {
	id := NewPrefixedID(context.Background(), "trace_", 20)
	if !strings.HasPrefix(id, "trace_") || len(id) != 26 || strings.Trim(id[6:], base62) != "" {
		t.Fatalf("random id %q", id)
	}
	a := NewPrefixedID(WithIDs(context.Background(), NewDeterministic(3).Scope()), "req_", 20)
	b := "req_" + NewID(WithIDs(context.Background(), NewDeterministic(3).Scope()), 20)
	if a != b {
		t.Fatalf("deterministic: %q != %q", a, b)
	}
}
