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
