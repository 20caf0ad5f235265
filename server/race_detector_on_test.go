//go:build race

package server

// raceDetector reports whether the tests run with the race detector,
// which adds allocations of its own: the allocation test skips under it
// (make test-norace runs it).
const raceDetector = true
