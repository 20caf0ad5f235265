//go:build amd64 && !purego

package index

import "golang.org/x/sys/cpu"

// dotAVX2 is implemented in dot_amd64.s with AVX2 and FMA; len(b) must be
// at least len(a).
//
//go:noescape
func dotAVX2(a, b []float32) float32

// dotI8AVX2 is implemented in dot_amd64.s with AVX2; len(b) must be at
// least len(a).
//
//go:noescape
func dotI8AVX2(a, b []int8) int32

func dotI8Impl(a, b []int8) int32 {
	if useAVX2 {
		_ = b[:len(a)]
		return dotI8AVX2(a, b)
	}
	return dotI8Generic(a, b)
}

// prefetch asks the CPU to load b's cache lines ahead of use; it is in
// dot_amd64.s.
//
//go:noescape
func prefetch(b []int8)

var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

func dotImpl(a, b []float32) float32 {
	if useAVX2 {
		_ = b[:len(a)]
		return dotAVX2(a, b)
	}
	return dotGeneric(a, b)
}

// SIMD reports whether dot products use a SIMD kernel.
func SIMD() bool { return useAVX2 }
