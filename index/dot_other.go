//go:build !amd64 || purego

package index

func dotImpl(a, b []float32) float32 { return dotGeneric(a, b) }

func dotI8Impl(a, b []int8) int32 { return dotI8Generic(a, b) }

// SIMD reports whether dot products use a SIMD kernel.
func SIMD() bool { return false }

// prefetch is a no-op without the assembly kernels.
func prefetch(b []int8) {}
