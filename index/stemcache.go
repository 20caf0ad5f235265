package index

import (
	"bytes"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/go-porterstemmer"
)

// Size of the stem cache (see cachedPorter).
const (
	stemSlots   = 1 << 15 // a power of two
	stemMaxTerm = 24      // longer terms are stemmed every time
)

// stemEntry is one cached stem; immutable once stored.
type stemEntry struct {
	term    string
	stem    []byte // read only: englishField's frequencies share it
	stemKey string // stem as a string, the key of those frequencies
	stemH   uint32 // fnv1a(stem)
}

// stemCache memoises the Porter stemmer for every hearth_en index of the
// process: direct-mapped (a term's slot is its FNV-1a hash; a new term
// replaces whatever was there), lock-free, at most stemSlots entries of
// short terms, about 3 MB when full. Stemming is a pure function of the term, so a
// cache hit gives the same term as the stemmer and nothing needs sharing
// between the nodes of a cluster: each process fills its own.
var stemCache [stemSlots]atomic.Pointer[stemEntry]

// cachedPorter is Bleve's "stemmer_porter" token filter (the same
// go-porterstemmer call on the token's runes) with stemCache in front.
// Running the stemmer on every token was about a tenth of ingestion's CPU
// time (docs/bench-log/2026-12-04.md), and a text's words repeat: most tokens hit.
type cachedPorter struct{}

// Filter stems each token that is not a keyword, as porter.PorterStemmer
// does. A token's stem that is a prefix of its term is a reslice of the
// term (no copy), any other stem is a fresh copy, so no token shares
// bytes with the cache or with another token.
func (cachedPorter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, token := range input {
		if token.KeyWord {
			continue
		}
		term := token.Term
		stem, _ := stemTerm(term, fnv1a(term))
		if bytes.HasPrefix(term, stem) {
			token.Term = term[:len(stem)]
		} else {
			token.Term = append(make([]byte, 0, len(stem)), stem...)
		}
	}
	return input
}

// fnv1a is the 32-bit FNV-1a hash of b, the hash of stemCache's slots and
// of stopSet's table.
func fnv1a(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// stemTerm returns the Porter stem of term, whose fnv1a hash is h, through
// stemCache. key is the stem as a string when it came from or went into
// the cache, else "". The stem is the cache's when cached: it must not be
// written to.
func stemTerm(term []byte, h uint32) (stem []byte, key string) {
	stem, key, _ = stemTermHashed(term, h)
	return stem, key
}

// stemTermHashed is stemTerm that also returns fnv1a(stem), kept in the
// cache with the stem.
func stemTermHashed(term []byte, h uint32) (stem []byte, key string, stemH uint32) {
	if len(term) > stemMaxTerm {
		stem = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(term)))
		return stem, "", fnv1a(stem)
	}
	slot := &stemCache[h&(stemSlots-1)]
	if e := slot.Load(); e != nil && e.term == string(term) {
		return e.stem, e.stemKey, e.stemH
	}
	stem = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(term)))
	e := &stemEntry{term: string(term), stem: stem, stemKey: string(stem), stemH: fnv1a(stem)}
	slot.Store(e)
	return e.stem, e.stemKey, e.stemH
}
