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

func TestDotI8MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300; n++ {
		a := make([]int8, n)
		b := make([]int8, n)
		for i := range a {
			a[i], b[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
		}
		if n > 0 {
			a[0], b[0] = -128, -128 // the largest product
		}
		var want int32
		for i := range a {
			want += int32(a[i]) * int32(b[i])
		}
		for name, f := range map[string]func(a, b []int8) int32{"dotI8": dotI8, "generic": dotI8Generic} {
			if got := f(a, b); got != want {
				t.Fatalf("%s n=%d: got %d want %d", name, n, got, want)
			}
		}
	}
}

func TestQuantizeKeepsDotProducts(t *testing.T) {
	vs := clustered(200, 384, 5, 9)
	codes := make([][]int8, len(vs))
	invs := make([]float32, len(vs))
	for i, v := range vs {
		nv, _ := normalize(v)
		vs[i] = nv
		codes[i] = make([]int8, len(nv))
		invs[i] = quantize(nv, codes[i])
	}
	for i := 1; i < len(vs); i++ {
		exact := dot(vs[i], vs[i-1])
		approx := float32(dotI8(codes[i], codes[i-1])) * invs[i] * invs[i-1]
		if math.Abs(float64(exact-approx)) > 0.02 {
			t.Fatalf("pair %d: exact %.4f approx %.4f", i, exact, approx)
		}
	}
	zero := make([]int8, 4)
	if inv := quantize(make([]float32, 4), zero); inv != 0 {
		t.Fatalf("zero vector: inv %v", inv)
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
