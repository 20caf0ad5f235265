package index

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestKeywordScoresAreBM25 checks the scores against Bleve's BM25
// (k1 = 1.2, b = 0.75), including its two quirks in v2.6.1 (see doc.go):
// the term frequency enters as sqrt(tf), and the "average length" is
// ceil(distinct terms in the field / documents). TF-IDF, which Bleve
// silently uses when BM25 is not honoured (NewMemOnly), gives different
// ratios: no saturation and 1/sqrt(length) normalisation.
func TestKeywordScoresAreBM25(t *testing.T) {
	kw, err := openKeyword(filepath.Join(t.TempDir(), "m"), "en", true)
	if err != nil {
		t.Fatal(err)
	}
	defer kw.close()
	docs := map[string]string{
		"tf1":   "apple zebra yak quail",
		"tf3":   "apple apple apple wolf",
		"short": "banana kiwi lime mango",
		"long":  "banana olive pear plum fig grape melon peach",
		"other": "cherry date elder guava",
	}
	var put []engine.IndexedChunk
	distinct := map[string]bool{}
	for id, text := range docs {
		put = append(put, engine.IndexedChunk{ID: id, Text: text})
		for _, w := range splitWords(text) {
			distinct[w] = true // no two words of this corpus share a stem
		}
	}
	if err := kw.apply(put, nil, 1); err != nil {
		t.Fatal(err)
	}
	avg := math.Ceil(float64(len(distinct)) / float64(len(docs)))
	bm25 := func(freq, length float64) float64 {
		tf := math.Sqrt(freq)
		return tf * 1.2 / (tf + 1.2*(1-0.75+0.75*length/avg))
	}
	score := func(q string) map[string]float64 {
		hits, err := kw.search(context.Background(), q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range hits {
			out[h.ID] = h.Score
		}
		return out
	}
	near := func(what string, got, want, tfidf float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-4*want {
			t.Fatalf("%s: ratio %.5f, BM25 predicts %.5f (TF-IDF would give %.5f)", what, got, want, tfidf)
		}
	}
	s := score("apple")
	near("term frequency saturation", s["tf3"]/s["tf1"], bm25(3, 4)/bm25(1, 4), math.Sqrt(3))
	if s["tf3"]/s["tf1"] > 1.4 {
		t.Fatal("no saturation")
	}
	s = score("banana")
	near("length normalisation", s["short"]/s["long"], bm25(1, 4)/bm25(1, 8), math.Sqrt2)
	// IDF: log(1 + (N - n + 0.5) / (n + 0.5)) with N = 5, n = 2, times the tf part.
	idf := math.Log(1 + (5-2+0.5)/(2+0.5))
	near("idf", s["short"], idf*bm25(1, 4), 0)
}

func splitWords(s string) []string {
	var out []string
	word := ""
	for _, r := range s + " " {
		if r == ' ' {
			if word != "" {
				out = append(out, word)
			}
			word = ""
		} else {
			word += string(r)
		}
	}
	return out
}
