//go:build race

package providers_test

// raceAllocsPerEvent is what the race detector adds to a streamed event.
const raceAllocsPerEvent = 1
