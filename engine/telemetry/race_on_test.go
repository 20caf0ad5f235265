//go:build race

package telemetry

// raceEnabled reports whether the race detector is on: it moves values to
// the heap, so the allocation test runs without it (make test-norace).
const raceEnabled = true
