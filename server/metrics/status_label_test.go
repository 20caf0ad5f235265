package metrics

import (
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestRequestStatusLabels: every status is labelled as strconv.Itoa words
// it, HTTP statuses without allocating a label.
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
	if n := testing.AllocsPerRun(100, func() { _ = statusLabel(200) }); n != 0 {
		t.Fatalf("statusLabel(200) allocates %.0f times", n)
	}
}
