package index

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDotMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		a := make([]float32, n)
		b := make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
			want += float64(a[i]) * float64(b[i])
		}
		for name, f := range map[string]func(a, b []float32) float32{"dot": dot, "generic": dotGeneric} {
			if got := f(a, b); math.Abs(float64(got)-want) > 1e-4*(1+math.Abs(want)) {
				t.Fatalf("%s n=%d: got %v want %v", name, n, got, want)
			}
		}
	}
}

func BenchmarkDot(b *testing.B) {
	for _, n := range []int{100, 768, 1536} {
		x := make([]float32, n)
		y := make([]float32, n)
		for i := range x {
			x[i], y[i] = float32(i), float32(n-i)
		}
		for name, f := range map[string]func(a, b []float32) float32{"simd": dot, "generic": dotGeneric} {
			b.Run(name+"/"+itoa(n), func(b *testing.B) {
				var s float32
				for b.Loop() {
					s += f(x, y)
				}
				_ = s
			})
		}
	}
}
