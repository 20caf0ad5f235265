//go:build race

package blob

// raceEnabled reports whether the race detector is on: the large tests
// are too slow under it.
const raceEnabled = true
