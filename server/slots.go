package server

import "sync/atomic"

// slots is the counting semaphore of MaxConcurrent: acquire takes a slot
// when fewer than max are taken, release gives it back. A compare-and-swap
// on one counter, where a buffered channel took its lock twice a request.
// The count lives in this process: with several Hearth nodes each bounds
// its own requests, as MaxConcurrent is documented to.
type slots struct {
	max int64
	n   atomic.Int64
}

func newSlots(max int) *slots {
	if max <= 0 {
		return nil
	}
	return &slots{max: int64(max)}
}

// acquire takes a slot; false when all max are taken.
func (s *slots) acquire() bool {
	for {
		n := s.n.Load()
		if n >= s.max {
			return false
		}
		if s.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release gives back a slot taken by acquire.
func (s *slots) release() { s.n.Add(-1) }
