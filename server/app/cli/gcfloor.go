package cli

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// maxGCPercent caps the GOGC the heap floor sets (a live heap of a few
// MiB would otherwise ask for tens of thousands).
const maxGCPercent = 1000

// gcFloorPeriod is how often the heap floor follows the live heap.
const gcFloorPeriod = time.Second

// GOGC is the process's: one floor runs at a time, and a second server in
// the same process (tests) leaves it to the first.
var (
	gcFloorMu sync.Mutex
	gcFloorOn bool
)

// startGCFloor keeps the garbage collector's heap goal at least floor
// bytes above the live heap, for as long as the server runs: every
// period it reads the live heap of the last collection and sets GOGC to
// the larger of the process's own value and what puts the goal at live +
// floor. A small heap (a cluster node's, whose records are in
// PostgreSQL) is then collected once per floor bytes allocated instead of
// once per live-heap size, and a heap larger than floor is left to the
// process's GOGC. stop restores that GOGC. It does nothing when floor is
// not positive or GOGC is off.
func startGCFloor(floor int64, period time.Duration) (stop func()) {
	if floor <= 0 {
		return func() {}
	}
	gcFloorMu.Lock()
	defer gcFloorMu.Unlock()
	if gcFloorOn {
		return func() {}
	}
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	if base < 0 {
		return func() {}
	}
	gcFloorOn = true
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	cur := base
	set := func() {
		metrics.Read(live)
		if live[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if p := gcPercentFor(base, live[0].Value.Uint64(), floor); p != cur {
			debug.SetGCPercent(p)
			cur = p
		}
	}
	set()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				gcFloorMu.Lock()
				debug.SetGCPercent(base)
				gcFloorOn = false
				gcFloorMu.Unlock()
				return
			case <-t.C:
				set()
			}
		}
	}()
	return func() { close(quit); <-done }
}

// gcPercentFor is the GOGC that puts the heap goal at live + floor, or
// base when that is higher, rounded down to a multiple of 25 (so small
// moves of the live heap do not reset it) and capped at maxGCPercent.
func gcPercentFor(base int, live uint64, floor int64) int {
	if live < 1<<20 {
		live = 1 << 20 // before the first collection
	}
	p := int(min(uint64(floor)*100/live, maxGCPercent))
	return max(base, p/25*25)
}
