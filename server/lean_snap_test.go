package server

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
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

// BenchmarkLeanSnapWrite writes a run answer's nine headers.
func BenchmarkLeanSnapWrite(b *testing.B) {
	h := http.Header{}
	for _, k := range []string{"Content-Security-Policy", "Content-Type", "Referrer-Policy", "Vary", "X-Content-Type-Options",
		"Lb-Model", "Lb-Request-Id", "Lb-Thread-Id", "Lb-Trace-Id"} {
		h[k] = []string{"01a210c4-68d3-798e-ba00-06a3e6c44f31-sFHomQXnrEVejjA7LDf7"}
	}
	var s leanSnap
	bw := bufio.NewWriterSize(io.Discard, 4<<10)
	b.ReportAllocs()
	for b.Loop() {
		s.take(h)
		s.write(bw)
		s.reset()
	}
}

// TestCleanHeaderValue: cleanHeaderValue gives what http.Header.Write
// writes for a value (CR and LF replaced by spaces, then trimmed).
func TestCleanHeaderValue(t *testing.T) {
	for _, v := range []string{"", " ", "a", " a", "a ", "\ta\t", "a\r\nb", "\r\n", "a\rb", "a\nb", " \r a \n ", "application/json",
		"default-src 'none'; frame-ancestors 'none'", "a\tb", "\x00a", "a\x0b", "ü ", "\n\r\t "} {
		checkCleanHeaderValue(t, v)
	}
}

func FuzzCleanHeaderValue(f *testing.F) {
	for _, v := range []string{"", " a\r\n", "x\ty", "a\nb "} {
		f.Add(v)
	}
	f.Fuzz(checkCleanHeaderValue)
}

func checkCleanHeaderValue(t *testing.T, v string) {
	want := strings.Trim(strings.NewReplacer("\n", " ", "\r", " ").Replace(v), " \t\n\r")
	if got := cleanHeaderValue(v); got != want {
		t.Fatalf("cleanHeaderValue(%q) = %q, want %q", v, got, want)
	}
	var b bytes.Buffer
	_ = http.Header{"X": {v}}.Write(&b)
	if want := "X: " + want + "\r\n"; b.String() != want {
		t.Fatalf("net/http writes %q for %q, the lean path %q", b.String(), v, want)
	}
}
