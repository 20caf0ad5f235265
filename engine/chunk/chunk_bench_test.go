package chunk

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkSplit reports throughput (MB/s) on 10 MB of text with the
// chunker and memory defaults.
func BenchmarkSplit(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	ascii := randomProse(rng, 10<<20)
	unicode := strings.ReplaceAll(ascii, "memory", "mémoire über 日本")
	for _, bc := range []struct {
		name         string
		text         string
		max, overlap int
	}{
		{"ascii/1024-256", ascii, ChunkerDefaultLength, ChunkerDefaultOverlap},
		{"ascii/10000-2048", ascii, MemoryDefaultSize, MemoryDefaultOverlap},
		{"unicode/1024-256", unicode, ChunkerDefaultLength, ChunkerDefaultOverlap},
		{"unicode/10000-2048", unicode, MemoryDefaultSize, MemoryDefaultOverlap},
		{"nospace/1024-256", strings.Repeat("x", 10<<20), ChunkerDefaultLength, ChunkerDefaultOverlap},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				Split(bc.text, bc.max, bc.overlap)
			}
		})
	}
}
