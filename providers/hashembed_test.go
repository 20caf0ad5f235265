package providers

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"
	"unicode"
)

// referenceHashVector is hash-embed as first written (hash/fnv, one
// string per word pair): the optimised HashVector must give the same
// vectors bit for bit, or stored memories would stop matching queries.
func referenceHashVector(s string) []float32 {
	v := make([]float32, HashEmbedDims)
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	add := func(feature string, weight float32) {
		h := fnv.New64a()
		h.Write([]byte(feature))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%HashEmbedDims] += sign * weight
	}
	for i, w := range words {
		add(w, 1)
		if i > 0 {
			add(words[i-1]+" "+w, 0.5)
		}
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= inv
	}
	return v
}

func TestHashVectorUnchanged(t *testing.T) {
	long := strings.Repeat("Otters hold hands while sleeping; 42 of them, naïve café ÉCOLE. ", 50)
	for _, s := range []string{"", "   ", "The cat sat on the mat", "a", "don't stop 3.5km", "日本語のテキスト と English", long,
		"bad \xff\xfeutf8\xffword", "\uFFFD x\uFFFDy", "İstanbul ΣΊΣΥΦΟΣ ǅ", "x_y-z 1,000.5 ²³ ⅷ", "trailing word"} {
		got, want := HashVector(s), referenceHashVector(s)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%.30q: component %d is %v, want %v", s, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkHashVectorAllocs: the words are found and hashed in one pass
// without a word list, so a long text costs the vector (and, unless it is
// all ASCII, the lower-cased copy), not a growing slice of words or
// allocations a word: 1 and 2 on Go 1.26.
func BenchmarkHashVectorAllocs(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog ", 200)
	for _, c := range []struct{ name, text string }{{"ascii", text}, {"non-ascii", "Naïve " + text}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				HashVector(c.text)
			}
		})
	}
}

// BenchmarkHashVector embeds a chunk of about 10,000 bytes of English.
func BenchmarkHashVector(b *testing.B) {
	text := strings.Repeat("The Quick brown fox jumps over the lazy dog, 42 times. ", 180)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		HashVector(text)
	}
}

// FuzzHashVector compares HashVector with the reference on any input.
func FuzzHashVector(f *testing.F) {
	for _, s := range []string{"The cat sat", "naïve café", "\xff\xfe x", "日本語 と English 42", "MiXeD CaSe ASCII_text-1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := HashVector(s), referenceHashVector(s)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%q: component %d is %v, want %v", s, i, got[i], want[i])
			}
		}
	})
}
