//go:build race

package providers

// h1Race reports whether the race detector is on (allocation counts are
// meaningless under it).
const h1Race = true
