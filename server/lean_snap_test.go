package server

import (
	"net/http"
	"testing"
)

// BenchmarkLeanSnapTake snapshots a run answer's nine headers, one
// answer after another on one connection.
func BenchmarkLeanSnapTake(b *testing.B) {
	h := http.Header{}
	for _, k := range []string{"Content-Security-Policy", "Content-Type", "Referrer-Policy", "Vary", "X-Content-Type-Options",
		"Lb-Model", "Lb-Request-Id", "Lb-Thread-Id", "Lb-Trace-Id"} {
		h[k] = []string{"v"}
	}
	var s leanSnap
	b.ReportAllocs()
	for b.Loop() {
		s.take(h)
		s.reset()
	}
}

// TestLeanSnapOrder: snapshots of header maps whose keys change from one
// answer to the next (the same keys, one more, one less, one replaced)
// list them sorted, as net/http writes them; a map with the last
// snapshot's keys takes the stored order instead of sorting.
func TestLeanSnapOrder(t *testing.T) {
	sets := [][]string{
		{"Vary", "Content-Type", "Lb-Request-Id"},
		{"Content-Type", "Vary", "Lb-Request-Id"},
		{"Content-Type", "Vary", "Lb-Request-Id", "Allow"},
		{"Content-Type", "Vary", "Allow"},
		{"Content-Type", "Vary", "Zeta"},
		{"Zeta", "Vary", "Content-Type"},
		{},
		{"A"},
	}
	var s leanSnap
	for i, keys := range sets {
		h := http.Header{}
		for j, k := range keys {
			h[k] = []string{string(rune('a' + j))}
		}
		reused := len(s.order) == len(h) && len(h) > 0
		for _, k := range s.order {
			reused = reused && h[k] != nil
		}
		sorts := s.sorts
		s.take(h)
		if len(s.kvs) != len(h) {
			t.Fatalf("set %d: %d entries for %d keys", i, len(s.kvs), len(h))
		}
		for j, kv := range s.kvs {
			if j > 0 && s.kvs[j-1].key >= kv.key {
				t.Fatalf("set %d: not sorted: %v", i, s.kvs)
			}
			if got := h[kv.key]; len(got) != 1 || got[0] != kv.values[0] {
				t.Fatalf("set %d: %s has %v, want %v", i, kv.key, kv.values, got)
			}
		}
		if reused != (s.sorts == sorts) {
			t.Fatalf("set %d: the same keys as the last snapshot: %v; sorted: %v", i, reused, s.sorts != sorts)
		}
		s.reset()
	}
}
