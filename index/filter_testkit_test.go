package index

import (
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// tokenStream makes a fresh token stream of words, positions from 1;
// keyword marks every third token as a keyword (not stemmed). The filter
// comparisons call it once per filter, since filters change tokens in place.
func tokenStream(words []string, keyword bool) analysis.TokenStream {
	ts := make(analysis.TokenStream, len(words))
	for i, w := range words {
		ts[i] = &analysis.Token{Term: []byte(w), Position: i + 1, KeyWord: keyword && i%3 == 0}
	}
	return ts
}

// fuzzWords splits a fuzz input at spaces into at most 64 words.
func fuzzWords(s string) []string {
	words := strings.Split(s, " ")
	if len(words) > 64 {
		words = words[:64]
	}
	return words
}
