//go:build race

package engine

// raceEnabled reports whether the race detector is on: it moves some
// values to the heap, so allocation counts are higher under it.
const raceEnabled = true
