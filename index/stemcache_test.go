package index

import (
	"bytes"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
)

// stemBoth runs the words through Bleve's Porter filter and cachedPorter
// and fails on the first difference; keyword marks every third token as a
// keyword (not stemmed).
func stemBoth(t testing.TB, words []string, keyword bool) {
	t.Helper()
	mk := func() analysis.TokenStream { return tokenStream(words, keyword) }
	want := porter.NewPorterStemmer().Filter(mk())
	for pass := 0; pass < 2; pass++ { // the second pass hits the cache
		got := cachedPorter{}.Filter(mk())
		for i := range want {
			if !bytes.Equal(got[i].Term, want[i].Term) {
				t.Fatalf("pass %d: %q stems to %q, Bleve's Porter filter gives %q", pass, words[i], got[i].Term, want[i].Term)
			}
		}
	}
}

// TestCachedPorterSameTerms: the memoised stemmer gives Bleve's Porter
// stems for English words (changed, unchanged, suffixes replaced rather
// than cut), non-ASCII, long and empty terms, keywords, on a miss and on
// a hit, and its tokens share no bytes with each other.
func TestCachedPorterSameTerms(t *testing.T) {
	words := strings.Fields(`running runs ran caresses ponies ties caress cats feed agreed plastered bled motoring sing
		conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional
		rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization
		predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti
		triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner
		gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism
		activate angulariti homologous effective bowdlerize probate rate cease controll roll generalizations
		oscillators naïve café übermäßig résumés ΚΑΛΗ мышление 東京 x a is`)
	words = append(words, "", strings.Repeat("internationalization", 3), "internationalizations")
	stemBoth(t, words, false)
	stemBoth(t, words, true)

	ts := analysis.TokenStream{{Term: []byte("happy")}, {Term: []byte("happy")}}
	cachedPorter{}.Filter(ts)
	ts[0].Term[0] = 'X'
	if string(ts[1].Term) != "happi" {
		t.Fatalf("tokens share their stem's bytes: %q", ts[1].Term)
	}
	stemBoth(t, []string{"happy"}, false) // the cache was not written through a token
}

// TestCachedPorterCaches: a stemmed short term is in the cache, a long
// one is not.
func TestCachedPorterCaches(t *testing.T) {
	short, long := "quarrelsomely", strings.Repeat("quarrelsome", 3)
	cachedPorter{}.Filter(analysis.TokenStream{{Term: []byte(short)}, {Term: []byte(long)}})
	found := map[string]bool{}
	for i := range stemCache {
		if e := stemCache[i].Load(); e != nil {
			found[e.term] = true
		}
	}
	if !found[short] || found[long] {
		t.Fatalf("cached %q: %v, %q: %v; want true, false", short, found[short], long, found[long])
	}
}

// FuzzCachedPorter compares the memoised stemmer with Bleve's on any
// bytes, split at spaces, twice (a miss, then a hit).
func FuzzCachedPorter(f *testing.F) {
	for _, s := range []string{"running ponies happy", "naïve café", "\xff\xfe", "generalizations generalization", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stemBoth(t, fuzzWords(s), false)
	})
}

func BenchmarkPorter(b *testing.B) {
	words := strings.Fields(strings.Repeat("the otters were running along the riverbanks hopefully searching for fish and crayfish ", 50))
	for _, tc := range []struct {
		name string
		f    analysis.TokenFilter
	}{{"bleve", porter.NewPorterStemmer()}, {"cached", cachedPorter{}}} {
		b.Run(tc.name, func(b *testing.B) {
			ts := make(analysis.TokenStream, len(words))
			for i := 0; i < b.N; i++ {
				for j, w := range words {
					ts[j] = &analysis.Token{Term: []byte(w)}
				}
				tc.f.Filter(ts)
			}
		})
	}
}

// BenchmarkFastTokenizerAllocs: the token stream is sized once from the
// input's length, not grown by doubling (13 allocations for this text
// before, 5 after on Go 1.26).
func BenchmarkFastTokenizerAllocs(b *testing.B) {
	text := []byte(strings.Repeat("The otters' dens, e.g. 3.5 km from the river_bank: 1,000 fish; don't count. ", 130))
	tok := &fastUnicode{}
	b.ReportAllocs()
	for b.Loop() {
		tok.Tokenize(text)
	}
}
