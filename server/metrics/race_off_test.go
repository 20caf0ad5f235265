//go:build !race

package metrics

// raceEnabled reports whether the race detector is on: it moves some
// values to the heap, so allocation counts are checked without it.
const raceEnabled = false
