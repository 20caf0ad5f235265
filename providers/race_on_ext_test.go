//go:build race

package providers_test

// raceAllocsPerEvent is what the race detector adds to a streamed event.
const raceAllocsPerEvent = 1

// raceEnabled reports whether the race detector is on (it moves values to
// the heap, so whole-call allocation counts are only checked without it).
const raceEnabled = true
