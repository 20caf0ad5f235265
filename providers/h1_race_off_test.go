//go:build !race

package providers

// h1Race reports whether the race detector is on: it drops pooled values
// at random, so the tests of pool reuse skip under it.
const h1Race = false
