package main

import (
	"errors"
	"testing"
	"time"
)

// TestOpStatsLeavesFailuresOut: failed requests count as errors and stay
// out of the latencies and of the successful count the throughput is
// computed from, so fast failures cannot make the server look fast.
func TestOpStatsLeavesFailuresOut(t *testing.T) {
	s := &opStats{name: "run"}
	for range 3 {
		s.add(10*time.Millisecond, nil)
	}
	for range 5 {
		s.add(time.Microsecond, errors.New("HTTP 500: boom"))
	}
	s.add(time.Hour, errors.New("timeout"))
	if s.n != 9 || s.errors != 6 || s.ok() != 3 {
		t.Fatalf("requests %d, errors %d, ok %d; want 9, 6, 3", s.n, s.errors, s.ok())
	}
	p50, p99, most := s.percentiles()
	if p50 != 10*time.Millisecond || p99 != 10*time.Millisecond || most != 10*time.Millisecond {
		t.Errorf("latencies p50 %v p99 %v max %v; want 10ms each (failures left out)", p50, p99, most)
	}
	if s.errorKinds["HTTP 500: boom"] != 5 || s.errorKinds["timeout"] != 1 {
		t.Errorf("error kinds %v", s.errorKinds)
	}

	none := &opStats{name: "upload"}
	none.add(time.Millisecond, errors.New("refused"))
	if p50, _, _ := none.percentiles(); p50 != 0 || none.ok() != 0 {
		t.Errorf("all failed: p50 %v ok %d; want 0 and 0", p50, none.ok())
	}
}
