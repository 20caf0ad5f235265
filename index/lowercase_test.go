package index

import (
	"bytes"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/registry"
)

// lowerBoth runs the words through Bleve's lower-case filter and
// asciiLower and fails on the first difference.
func lowerBoth(t testing.TB, words []string) {
	t.Helper()
	mk := func() analysis.TokenStream { return tokenStream(words, false) }
	want := lowercase.NewLowerCaseFilter().Filter(mk())
	got := newASCIILower().Filter(mk())
	for i := range want {
		if !bytes.Equal(got[i].Term, want[i].Term) {
			t.Fatalf("%q lowers to %q, Bleve's filter gives %q", words[i], got[i].Term, want[i].Term)
		}
	}
}

// TestASCIILowerSameTerms: the same terms as Bleve's filter for ASCII
// (mixed case, digits, underscores), and for non-ASCII terms (Greek final
// sigma, a letter whose lower case is wider, invalid UTF-8) through it.
func TestASCIILowerSameTerms(t *testing.T) {
	lowerBoth(t, strings.Fields("The OTTERS river_Bank 3.5KM don't McDonald ÉCOLE naïve ΣΊΣΥΦΟΣ ȺȾ İstanbul x Z @[` \xff\xfeAB"))
	lowerBoth(t, []string{""})
}

// FuzzASCIILower compares asciiLower with Bleve's filter on any bytes.
func FuzzASCIILower(f *testing.F) {
	for _, s := range []string{"The OTTERS", "ÉCOLE ΣΊΣΥΦΟΣ", "Ⱥb \xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lowerBoth(t, fuzzWords(s))
	})
}

// TestFastEnglishFilters: hearth_en lowers with asciiLower, removes stop
// words with a stopSet and stems with cachedPorter, in Bleve's order
// (possessive, lower case, stop words, stemmer).
func TestFastEnglishFilters(t *testing.T) {
	a, err := fastEnglish(nil, registry.NewCache())
	if err != nil {
		t.Fatal(err)
	}
	fs := a.(*analysis.DefaultAnalyzer).TokenFilters
	if len(fs) != 4 {
		t.Fatalf("%d filters", len(fs))
	}
	if _, ok := fs[1].(asciiLower); !ok {
		t.Fatalf("lower case: %T", fs[1])
	}
	if _, ok := fs[2].(*stopSet); !ok {
		t.Fatalf("stop words: %T", fs[2])
	}
	if _, ok := fs[3].(cachedPorter); !ok {
		t.Fatalf("stemmer: %T", fs[3])
	}
}
