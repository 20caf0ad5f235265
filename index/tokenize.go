package index

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
)

// Names of Hearth's analyzer and tokenizer, registered with Bleve.
const (
	fastEnglishAnalyzer = "hearth_en"
	fastUnicodeName     = "hearth_unicode"
)

// fastUnicode is Bleve's "unicode" tokenizer (Unicode word boundaries, UAX #29,
// https://unicode.org/reports/tr29/#Word_Boundaries) with a fast path for input
// that is all ASCII, the common case of chunk text, where the general segmenter
// was a tenth of ingestion's CPU time (docs/bench-log/2026-12-04.md). It gives
// the same tokens (term, offsets, position, type); input with any other byte
// goes to the general tokenizer.
type fastUnicode struct{ general analysis.Tokenizer }

// ASCII word-break classes of UAX #29 as bits (the rest are "Other", 0).
const (
	wbLetter     = 1 << iota
	wbDigit      //
	wbUnderscore // ExtendNumLet
	wbMidLetter  // ':'
	wbMidNum     // ',' ';'
	wbMidBoth    // '.' (MidNumLet), '\'' (Single_Quote)

	wbWord = wbLetter | wbDigit | wbUnderscore // the classes a word is made of
)

var wbClass = func() (t [128]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = wbLetter, wbLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = wbDigit
	}
	t['_'], t[':'], t[','], t[';'], t['.'], t['\''] = wbUnderscore, wbMidLetter, wbMidNum, wbMidNum, wbMidBoth, wbMidBoth
	return t
}()

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// Tokenize implements analysis.Tokenizer.
func (f *fastUnicode) Tokenize(input []byte) analysis.TokenStream {
	if !isASCII(input) {
		return f.general.Tokenize(input)
	}
	// One token per about 6 bytes of prose: the stream is sized once
	// instead of growing by doubling (its growth was a third of the
	// tokenizer's time).
	rv := make(analysis.TokenStream, 0, len(input)/6+1)
	var ta []analysis.Token
	pos := 1
	for i := 0; ; {
		start, end, numeric := nextASCIIWord(input, i)
		if start == end {
			break
		}
		i = end
		if len(ta) == 0 {
			ta = make([]analysis.Token, min(1000, max(1, (len(input)-i)/6+1)))
		}
		t := &ta[0]
		ta = ta[1:]
		t.Term, t.Start, t.End, t.Position = input[start:end], start, end, pos
		t.Type = analysis.AlphaNumeric
		if numeric {
			t.Type = analysis.Numeric
		}
		rv = append(rv, t)
		pos++
	}
	return rv
}

// nextASCIIWord finds the first word of the all-ASCII input at or after
// i by UAX #29's rules; start == end when there is none. numeric reports a
// word of digits (and joiners) without letters.
func nextASCIIWord(input []byte, i int) (start, end int, numeric bool) {
	for i < len(input) && wbClass[input[i]&0x7f]&wbWord == 0 {
		i++
	}
	if i == len(input) {
		return i, i, false
	}
	start = i
	var seen uint8 // the classes of the word's characters
	for i < len(input) {
		c := wbClass[input[i]&0x7f]
		if c&wbWord != 0 {
			seen |= c
			i++
			continue
		}
		// A middle character joins two letters (WB6, WB7) or two
		// digits (WB11, WB12) it stands between.
		if c == 0 || i+1 >= len(input) {
			break
		}
		prev, next := wbClass[input[i-1]&0x7f], wbClass[input[i+1]&0x7f]
		if (prev == wbLetter && next == wbLetter && c&(wbMidLetter|wbMidBoth) != 0) ||
			(prev == wbDigit && next == wbDigit && c&(wbMidNum|wbMidBoth) != 0) {
			i++ // the letter or digit after it is read next
			continue
		}
		break
	}
	return start, i, seen&wbDigit != 0 && seen&wbLetter == 0
}

// fastEnglish is Bleve's "en" analyzer with fastUnicode for its tokenizer:
// the same filters (possessive, lower case, English stop words, Porter
// stemmer, memoised: cachedPorter) in the same order, so the same terms;
// lower case is asciiLower, stop words a stopSet.
func fastEnglish(config map[string]interface{}, cache *registry.Cache) (analysis.Analyzer, error) {
	tok, err := cache.TokenizerNamed(fastUnicodeName)
	if err != nil {
		return nil, err
	}
	possessive, err := cache.TokenFilterNamed(en.PossessiveName)
	if err != nil {
		return nil, err
	}
	stopWords, err := cache.TokenMapNamed(en.StopName)
	if err != nil {
		return nil, err
	}
	filters := []analysis.TokenFilter{possessive, newASCIILower(), newStopSet(stopWords), cachedPorter{}}
	return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}, nil
}

func init() {
	err := registry.RegisterTokenizer(fastUnicodeName, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return &fastUnicode{general: unicode.NewUnicodeTokenizer()}, nil
	})
	if err == nil {
		err = registry.RegisterAnalyzer(fastEnglishAnalyzer, fastEnglish)
	}
	if err != nil {
		panic(err)
	}
}
