package metrics

import (
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestRequestStatusLabels: every status is labelled as strconv.Itoa words
// it.
func TestRequestStatusLabels(t *testing.T) {
	for _, s := range []int{0, 99, 100, 200, 404, 499, 599, 600, 1000, -1} {
		if got := statusLabel(s); got != strconv.Itoa(s) {
			t.Fatalf("status %d labelled %q", s, got)
		}
	}
	m := New("test")
	m.Request("POST", "/v1/pipes/run", 200, time.Millisecond)
	m.Request("POST", "/v1/pipes/run", 429, time.Millisecond)
	m.Request("POST", "/v1/pipes/run", 200, time.Millisecond)
	if n := testutil.ToFloat64(m.requests.WithLabelValues("POST", "/v1/pipes/run", "200")); n != 2 {
		t.Fatalf("200s counted %v", n)
	}
	if n := testutil.ToFloat64(m.requests.WithLabelValues("POST", "/v1/pipes/run", "429")); n != 1 {
		t.Fatalf("429s counted %v", n)
	}
}

// BenchmarkStatusLabelAllocs: an HTTP status's label is a shared string,
// no allocation (Go 1.26).
func BenchmarkStatusLabelAllocs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		statusLabelSink = statusLabel(200)
	}
}

// statusLabelSink keeps BenchmarkStatusLabelAllocs's labels on the heap.
var statusLabelSink string
