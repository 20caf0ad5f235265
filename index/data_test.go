package index

import (
	"fmt"
	"math/rand/v2"
)

// clustered returns n deterministic vectors in dim dimensions drawn around
// the given number of random centres, the shape of real embedding data
// (topics) that makes graph indexes work hard at cluster borders.
func clustered(n, dim, clusters int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float32, clusters)
	for i := range centres {
		c := make([]float32, dim)
		for j := range c {
			c[j] = float32(r.NormFloat64())
		}
		centres[i] = c
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(clusters)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + clusterNoise*float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out
}

func chunkID(i int) string { return fmt.Sprintf("c%06d", i) }

// recallAt compares approximate hits with exact hits by id.
func recallAt(got, want [][]string) float64 {
	hit, total := 0, 0
	for i := range want {
		set := map[string]bool{}
		for _, id := range want[i] {
			set[id] = true
		}
		for _, id := range got[i] {
			if set[id] {
				hit++
			}
		}
		total += len(want[i])
	}
	if total == 0 {
		return 1
	}
	return float64(hit) / float64(total)
}

// clusterNoise is the per-dimension spread around a centre (centres have
// unit variance per dimension): at 1.5 a point is farther from its centre
// than the centre is from the origin, so neighbourhoods overlap and the
// nearest-neighbour problem is not trivial.
var clusterNoise float32 = 1.5
