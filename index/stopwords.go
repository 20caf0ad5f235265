package index

import "github.com/blevesearch/bleve/v2/analysis"

// stopSet is Bleve's stop-word filter ("stop_en": remove every token whose
// term is in the token map) with an open-addressed table of the words in
// place of a Go map: a term longer or shorter than every stop word is kept
// without a lookup, and the others are found by a short FNV-1a hash and a
// string comparison. The map lookups were 4 % of ingestion's CPU
// (measured on HTTP ingestion, docs/bench-log/2026-12-04.md); the terms
// kept are the same (a differential test and a fuzz target against Bleve's
// filter). The table is built once per analyzer and only read after, in
// each process: nothing is shared between nodes.
type stopSet struct {
	slots          []string // empty: free; power-of-two length
	minLen, maxLen int
}

// newStopSet builds the set of the map's words (Bleve's filter removes a
// term present in the map whatever its value).
func newStopSet(words analysis.TokenMap) *stopSet {
	n := 64
	for n < 8*len(words) {
		n *= 2
	}
	s := &stopSet{slots: make([]string, n), minLen: int(^uint(0) >> 1)}
	for w := range words {
		if w == "" {
			// An empty term would mark a free slot; Bleve would remove
			// empty terms, which no tokenizer makes.
			s.minLen = 0
			continue
		}
		s.minLen, s.maxLen = min(s.minLen, len(w)), max(s.maxLen, len(w))
		i := stopHash(w) & uint32(n-1)
		for s.slots[i] != "" && s.slots[i] != w {
			i = (i + 1) & uint32(n-1)
		}
		s.slots[i] = w
	}
	return s
}

func stopHash[T string | []byte](b T) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(b); i++ {
		h = (h ^ uint32(b[i])) * 16777619
	}
	return h
}

// has reports whether term is a stop word.
func (s *stopSet) has(term []byte) bool {
	if len(term) < s.minLen || len(term) > s.maxLen {
		return false
	}
	return s.hasHashed(term, stopHash(term))
}

// hasHashed is has for a term whose stopHash (fnv1a) is h.
func (s *stopSet) hasHashed(term []byte, h uint32) bool {
	if len(term) < s.minLen || len(term) > s.maxLen {
		return false
	}
	if len(term) == 0 {
		return true // only when the map has the empty term (minLen 0)
	}
	mask := uint32(len(s.slots) - 1)
	for i := h & mask; s.slots[i] != ""; i = (i + 1) & mask {
		if s.slots[i] == string(term) {
			return true
		}
	}
	return false
}

// Filter implements analysis.TokenFilter as Bleve's stop filter does:
// stop words are removed in place, the other tokens keep their order and
// positions.
func (s *stopSet) Filter(input analysis.TokenStream) analysis.TokenStream {
	j := 0
	for _, t := range input {
		if !s.has(t.Term) {
			input[j] = t
			j++
		}
	}
	return input[:j]
}
