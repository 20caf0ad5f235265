//go:build race

package blob

// raceEnabled reports whether the race detector is on: allocation counts
// are higher under it.
const raceEnabled = true
