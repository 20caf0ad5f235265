//go:build race

package providers

// raceAllocs is the allocation the race detector adds to a decoded chunk.
const raceAllocs = 1
