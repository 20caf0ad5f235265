package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
)

func tokenString(ts analysis.TokenStream) string {
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, "%q@%d-%d#%d/%d ", t.Term, t.Start, t.End, t.Position, t.Type)
	}
	return b.String()
}

// sameTokens fails unless the fast tokenizer and Bleve's unicode tokenizer,
// and the hearth_en and en analyzers, give the same tokens for input.
func sameTokens(t *testing.T, input []byte) {
	t.Helper()
	fast := &fastUnicode{general: unicode.NewUnicodeTokenizer()}
	want := tokenString(unicode.NewUnicodeTokenizer().Tokenize(append([]byte(nil), input...)))
	if got := tokenString(fast.Tokenize(append([]byte(nil), input...))); got != want {
		t.Fatalf("tokens of %q:\n got %s\nwant %s", input, got, want)
	}
	cache := registry.NewCache()
	slow, err := cache.AnalyzerNamed(en.AnalyzerName)
	if err != nil {
		t.Fatal(err)
	}
	quick, err := cache.AnalyzerNamed(fastEnglishAnalyzer)
	if err != nil {
		t.Fatal(err)
	}
	want = tokenString(slow.Analyze(append([]byte(nil), input...)))
	if got := tokenString(quick.Analyze(append([]byte(nil), input...))); got != want {
		t.Fatalf("terms of %q:\n got %s\nwant %s", input, got, want)
	}
}

func TestFastTokenizerMatchesUnicode(t *testing.T) {
	for _, s := range []string{
		"", "abc", "123", "3rd", "a1", "1a", "_", "__", "a_", "_a", "1_", "_1", "a_1", "1,000", "1.5", "a.b", "a:b",
		"1:2", "a'b", "1'2", "a,b", "a;b", "1;2", "a.1", "1.a", "a._", "e.g.", "x  y", "\r\n", "a\"b", "_._", "1_a",
		"a__b", "1,a", "a.b.c", "1.2.3", "1,,2", "a..b", "'a'", "a:", ":a", "1.", ".1", "a_.b", "1_,2", "don't stop",
		"The Otters' dens, e.g. 3.5km (see https://example.com/a_b?x=1;y=2).", "# Title\n\n- item one\n| a | b |\n```go\nfunc f() {}\n```",
		"naïve café", "a’b ‘quoted’", "日本語 text", "x\u0301y", "a\x00b\x7fc",
	} {
		sameTokens(t, []byte(s))
	}
	// Random ASCII over the characters that matter to word boundaries.
	const alphabet = "aZ09_:.,;'\" \n\r\t-!#|*`()[]"
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 3000; n++ {
		b := make([]byte, 1+r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		sameTokens(t, b)
	}
}

func FuzzFastTokenizer(f *testing.F) {
	for _, s := range []string{"a.b 1,000 don't", "e.g. x_1:y", "naïve café", "1.2.3 a..b"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameTokens(t, b) })
}

// TestKeywordMappingUsesFastAnalyzer: new keyword indexes asked for "en"
// are made with hearth_en; other analyzers are kept.
func TestKeywordMappingUsesFastAnalyzer(t *testing.T) {
	if got := keywordMapping("en").AnalyzerNameForPath(keywordField); got != fastEnglishAnalyzer {
		t.Fatalf("en: %s", got)
	}
	if got := keywordMapping("standard").AnalyzerNameForPath(keywordField); got != "standard" {
		t.Fatalf("standard: %s", got)
	}
}

func BenchmarkTokenize(b *testing.B) {
	text := []byte(strings.Repeat("The otters' dens, e.g. 3.5 km from the river_bank: 1,000 fish; don't count. ", 130))
	for _, tc := range []struct {
		name string
		tok  analysis.Tokenizer
	}{{"unicode", unicode.NewUnicodeTokenizer()}, {"hearth_unicode", &fastUnicode{general: unicode.NewUnicodeTokenizer()}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				tc.tok.Tokenize(text)
			}
		})
	}
}
