//go:build race

package index

// raceEnabled reports whether the race detector is on: it is slow, so the
// recall and concurrency tests use smaller data sets under it.
const raceEnabled = true
