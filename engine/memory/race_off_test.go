//go:build !race

package memory

// raceEnabled: the race detector adds allocations of its own.
const raceEnabled = false
