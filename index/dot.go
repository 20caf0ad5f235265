package index

import "math"

// dot returns the dot product of a and b, which must have the same length.
// It is the hot loop of every search; dotImpl is the AVX2+FMA kernel on amd64
// CPUs that have it and dotGeneric everywhere else.
func dot(a, b []float32) float32 { return dotImpl(a, b) }

// dotGeneric is the portable kernel: unrolled by 8 with four independent
// accumulators so the CPU can overlap the multiply-adds.
func dotGeneric(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		aa := a[i : i+8 : i+8]
		bb := b[i : i+8 : i+8]
		s0 += aa[0]*bb[0] + aa[4]*bb[4]
		s1 += aa[1]*bb[1] + aa[5]*bb[5]
		s2 += aa[2]*bb[2] + aa[6]*bb[6]
		s3 += aa[3]*bb[3] + aa[7]*bb[7]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotI8 returns the dot product of two int8 codes of the same length (see
// quantize); the sum cannot overflow below 65536 dimensions.
func dotI8(a, b []int8) int32 { return dotI8Impl(a, b) }

// dotI8Generic is the portable int8 kernel, unrolled by 4.
func dotI8Generic(a, b []int8) int32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < n; i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// quantize writes v as int8 codes into dst, scaled so that the largest
// component is ±127, and returns the factor that turns a code back into a
// value (0 for a zero vector). The graph walks on codes: a quarter of the
// memory traffic of float32, at about 1% error on a dot product; final
// scores come from the float32 vectors.
func quantize(v []float32, dst []int8) float32 {
	var m float32
	for _, x := range v {
		m = max(m, x, -x)
	}
	if m == 0 {
		clear(dst[:len(v)])
		return 0
	}
	s := 127 / m
	for i, x := range v {
		dst[i] = int8(math.Round(float64(x * s)))
	}
	return m / 127
}

// normalize returns a unit-length copy of v. It reports false for empty,
// zero or non-finite vectors, which have no direction.
func normalize(v []float32) ([]float32, bool) {
	if len(v) == 0 {
		return nil, false
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
		return nil, false
	}
	inv := 1 / math.Sqrt(ss)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, true
}
