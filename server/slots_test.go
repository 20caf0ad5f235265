package server

import (
	"sync"
	"testing"
)

// TestSlots: at most max slots are taken at once, from any number of
// goroutines, and a released slot can be taken again; no slots without a
// maximum.
func TestSlots(t *testing.T) {
	if newSlots(0) != nil {
		t.Fatal("slots without a maximum")
	}
	s := newSlots(3)
	for i := 0; i < 3; i++ {
		if !s.acquire() {
			t.Fatalf("slot %d refused", i)
		}
	}
	if s.acquire() {
		t.Fatal("a fourth slot of three taken")
	}
	s.release()
	if !s.acquire() || s.acquire() {
		t.Fatal("a released slot is not taken again once")
	}
	for i := 0; i < 3; i++ {
		s.release()
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	held, most := 0, 0
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 2000; i++ {
				if !s.acquire() {
					continue
				}
				mu.Lock()
				held++
				most = max(most, held)
				mu.Unlock()
				mu.Lock()
				held--
				mu.Unlock()
				s.release()
			}
		})
	}
	wg.Wait()
	if most > 3 || s.n.Load() != 0 {
		t.Fatalf("at most %d slots held at once, %d left taken", most, s.n.Load())
	}
}

// BenchmarkSlotsAllocs: taking and releasing a slot allocates nothing
// (Go 1.26).
func BenchmarkSlotsAllocs(b *testing.B) {
	s := newSlots(3)
	b.ReportAllocs()
	for b.Loop() {
		s.acquire()
		s.release()
	}
}
