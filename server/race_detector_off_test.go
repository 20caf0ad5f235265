//go:build !race

package server

// raceDetector reports whether the tests run with the race detector,
// which adds allocations of its own.
const raceDetector = false
