package cli

import (
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		base  int
		live  uint64
		floor int64
		want  int
	}{
		{100, 16 * mib, 64 * mib, 400},  // goal 16 + 64 MiB
		{100, 20 * mib, 64 * mib, 300},  // 320 rounded down
		{100, 64 * mib, 64 * mib, 100},  // the process's own GOGC already gives the floor
		{100, 512 * mib, 64 * mib, 100}, // a large heap keeps GOGC
		{200, 40 * mib, 64 * mib, 200},  // a higher GOGC of the user's wins
		{100, 0, 64 * mib, 1000},        // before the first collection: capped
		{100, 2 * mib, 1 << 30, 1000},   // capped
	}
	for _, c := range cases {
		if got := gcPercentFor(c.base, c.live, c.floor); got != c.want {
			t.Errorf("gcPercentFor(%d, %d MiB, %d MiB) = %d, want %d", c.base, c.live/mib, c.floor/mib, got, c.want)
		}
	}
}

// TestGCFloorSetsAndRestores: the floor raises GOGC for a small heap while
// it runs, and stop puts the process's own value back; a floor of 0 or
// GOGC off leaves GOGC alone.
func TestGCFloorSetsAndRestores(t *testing.T) {
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	stop := startGCFloor(1<<40, time.Hour)  // sets GOGC once at start
	stop2 := startGCFloor(1<<20, time.Hour) // a second floor leaves it to the first
	got := debug.SetGCPercent(100)
	debug.SetGCPercent(got)
	stop()
	stop2()
	if got != maxGCPercent {
		t.Errorf("GOGC under a 1 TiB floor = %d, want %d", got, maxGCPercent)
	}
	if after := debug.SetGCPercent(100); after != 100 {
		t.Errorf("GOGC after both stops = %d, want 100", after)
	}
	startGCFloor(0, time.Hour)()
	debug.SetGCPercent(-1)
	startGCFloor(1<<40, time.Hour)()
	if after := debug.SetGCPercent(100); after != -1 {
		t.Errorf("GOGC off became %d under the floor", after)
	}
}
