package index

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
)

// asciiLower is Bleve's "to_lower" token filter with a fast path for
// all-ASCII terms, the common case: their upper-case letters are lowered
// in place, as Bleve's filter does; a term with any other byte goes to
// Bleve's filter. Bleve's decodes and lowers every rune of every term
// through the Unicode tables, about 4 % of ingestion's CPU time (docs/bench-log/2026-12-04.md).
type asciiLower struct{ general analysis.TokenFilter }

// Filter lowers each token's term.
func (f asciiLower) Filter(input analysis.TokenStream) analysis.TokenStream {
	for i, token := range input {
		term := token.Term
		ascii := true
		for j, c := range term {
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
			if 'A' <= c && c <= 'Z' {
				term[j] = c + 'a' - 'A'
			}
		}
		if !ascii {
			f.general.Filter(input[i : i+1])
		}
	}
	return input
}

func newASCIILower() asciiLower { return asciiLower{general: lowercase.NewLowerCaseFilter()} }
