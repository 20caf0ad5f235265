//go:build !amd64 || purego

package index

func dotImpl(a, b []float32) float32 { return dotGeneric(a, b) }

// SIMD reports whether dot products use a SIMD kernel.
func SIMD() bool { return false }
