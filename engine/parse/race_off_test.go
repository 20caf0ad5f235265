//go:build !race

package parse

// raceEnabled: the race detector makes sync.Pool drop items, so regexp
// allocates a matcher per call and allocation counts mean little.
const raceEnabled = false
