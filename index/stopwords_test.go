package index

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/registry"
)

func englishStopWords(t testing.TB) analysis.TokenMap {
	t.Helper()
	m, err := registry.NewCache().TokenMapNamed(en.StopName)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stopBoth runs the words through Bleve's stop filter and a stopSet of the
// same map and fails unless the same tokens, in the same order, are kept.
func stopBoth(t testing.TB, m analysis.TokenMap, words []string) {
	t.Helper()
	mk := func() analysis.TokenStream { return tokenStream(words, false) }
	want := stop.NewStopTokensFilter(m).Filter(mk())
	got := newStopSet(m).Filter(mk())
	if len(got) != len(want) {
		t.Fatalf("%q: %d tokens kept, Bleve's filter keeps %d", words, len(got), len(want))
	}
	for i := range want {
		if string(got[i].Term) != string(want[i].Term) || got[i].Position != want[i].Position {
			t.Fatalf("%q: token %d is %q@%d, Bleve's filter gives %q@%d", words, i, got[i].Term, got[i].Position, want[i].Term, want[i].Position)
		}
	}
}

// TestStopSetSameTokens: every English stop word is removed and words next
// to them (prefixes, extensions, other case, longer and shorter than any
// stop word, random words) are kept, as by Bleve's filter.
func TestStopSetSameTokens(t *testing.T) {
	m := englishStopWords(t)
	if len(m) < 100 {
		t.Fatalf("%d English stop words", len(m))
	}
	var words []string
	for w := range m {
		words = append(words, w, w+"s", "x"+w, strings.ToUpper(w), w[:len(w)-1])
	}
	words = append(words, "", "a", "i", "otter", "river", "extraordinarily", "themselvesx", "the_", "don't")
	stopBoth(t, m, words)
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		ws := make([]string, 50)
		for i := range ws {
			b := make([]byte, r.IntN(8))
			for j := range b {
				b[j] = "aehinorst'"[r.IntN(10)]
			}
			ws[i] = string(b)
		}
		stopBoth(t, m, ws)
	}
	// A map with the empty term, and one with none at all.
	stopBoth(t, analysis.TokenMap{"": true, "of": false}, []string{"", "of", "o", "off"})
	stopBoth(t, analysis.TokenMap{}, []string{"", "the"})
}

// FuzzStopSet compares a stopSet with Bleve's filter on any words.
func FuzzStopSet(f *testing.F) {
	m := englishStopWords(f)
	for _, s := range []string{"the otter and the river", "THE themselves x", "ÉCOLE \xff of"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stopBoth(t, m, fuzzWords(s))
	})
}
