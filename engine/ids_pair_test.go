package engine

import (
	"context"
	"strings"
	"testing"
)

// TestNewPrefixedIDPair: both ids have their prefix, length and base62
// characters, differ from call to call, and with an IDSource are the two
// ids NewPrefixedID would draw in order.
func TestNewPrefixedIDPair(t *testing.T) {
	seen := map[string]bool{}
	counts := map[byte]int{}
	for range 2000 {
		a, b := NewPrefixedIDPair(context.Background(), "req_", 20, "trace_", 20)
		if !strings.HasPrefix(a, "req_") || len(a) != 24 || !strings.HasPrefix(b, "trace_") || len(b) != 26 {
			t.Fatalf("ids %q %q", a, b)
		}
		for _, s := range []string{a[4:], b[6:]} {
			for i := range len(s) {
				if strings.IndexByte(base62, s[i]) < 0 {
					t.Fatalf("%q: not base62", s)
				}
				counts[s[i]]++
			}
		}
		if seen[a] || seen[b] {
			t.Fatalf("repeated id %q %q", a, b)
		}
		seen[a], seen[b] = true, true
	}
	// 80000 characters over 62: every one drawn, none far from 1/62.
	for i := range len(base62) {
		if n := counts[base62[i]]; n < 1000 || n > 1600 {
			t.Fatalf("%q drawn %d times of 80000", base62[i], n)
		}
	}
	d1 := WithIDs(context.Background(), NewDeterministic(7).Scope())
	d2 := WithIDs(context.Background(), NewDeterministic(7).Scope())
	a, b := NewPrefixedIDPair(d1, "req_", 20, "trace_", 20)
	if wa, wb := NewPrefixedID(d2, "req_", 20), NewPrefixedID(d2, "trace_", 20); a != wa || b != wb {
		t.Fatalf("with an IDSource: %q %q, want %q %q", a, b, wa, wb)
	}
}

// TestNewPrefixedIDPairIn: the ids are written into the caller's buffer when
// it is large enough, drawn afresh otherwise.
func TestNewPrefixedIDPairIn(t *testing.T) {
	var buf [50]byte
	a, b := NewPrefixedIDPairIn(context.Background(), buf[:], "req_", 20, "trace_", 20)
	if a+b != string(buf[:]) || !strings.HasPrefix(a, "req_") || len(a) != 24 || !strings.HasPrefix(b, "trace_") || len(b) != 26 {
		t.Fatalf("ids %q %q, buffer %q", a, b, buf)
	}
	small := make([]byte, 10)
	a, b = NewPrefixedIDPairIn(context.Background(), small, "req_", 20, "trace_", 20)
	if len(a) != 24 || len(b) != 26 || string(small) != string(make([]byte, 10)) {
		t.Fatalf("short buffer: ids %q %q, buffer %q", a, b, small)
	}
}

// BenchmarkPrefixedIDPairAllocs: a request's two ids cost one allocation
// for both, none in a buffer of the caller's (Go 1.26).
func BenchmarkPrefixedIDPairAllocs(b *testing.B) {
	ctx := context.Background()
	b.Run("pair", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			NewPrefixedIDPair(ctx, "req_", 20, "trace_", 20)
		}
	})
	b.Run("in buffer", func(b *testing.B) {
		var buf [50]byte
		b.ReportAllocs()
		for b.Loop() {
			NewPrefixedIDPairIn(ctx, buf[:], "req_", 20, "trace_", 20)
		}
	})
}
