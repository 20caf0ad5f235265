package index

import (
	"sync"

	bleveindex "github.com/blevesearch/bleve_index_api"
)

// freqArena holds what englishAnalysis makes for one chunk and Bleve reads
// until the batch holding the chunk is written: the term frequencies map
// and the TokenFreq slab its values point into. Once Bleve's Batch has
// returned, nothing of Bleve's refers to them (scorch waits for every
// document's analysis and builds the segment's bytes from them before it
// returns; zapx resets its pooled builder), so keywordIndex.applyAt hands
// them back for the next batch's chunks instead of leaving a batch's worth
// (about 6 bytes a byte of text) to the garbage collector. The terms
// themselves (the stem cache's) are never reused. Arenas are pooled per
// process through a sync.Pool, which the garbage collector empties when
// they lie unused; nothing is shared between nodes of a cluster.
type freqArena struct {
	freqs bleveindex.TokenFrequencies
	slab  []bleveindex.TokenFreq // reused
	extra []bleveindex.TokenFreq // the rest of a slab made when slab ran out
	used  int                    // TokenFreqs taken
}

// Arenas larger than a chunk of 64 KB needs are not pooled.
const maxArenaTerms = 4096

var arenaPool = sync.Pool{New: func() any { return new(freqArena) }}

// getArena returns an empty arena for a text of size bytes.
func getArena(size int) *freqArena {
	a := arenaPool.Get().(*freqArena)
	if a.freqs == nil {
		// Up to one distinct term per 16 bytes of prose: a map that grows
		// while filled costs more than one sized a little large.
		n := min(size/16+8, maxArenaTerms)
		a.freqs = make(bleveindex.TokenFrequencies, n)
		a.slab = make([]bleveindex.TokenFreq, n)
	}
	return a
}

// take returns a TokenFreq holding term and a frequency of 0: from the
// reused slab while it lasts, then from new slabs sized by rest, the
// bytes of text left.
func (a *freqArena) take(rest int, term []byte) *bleveindex.TokenFreq {
	var tf *bleveindex.TokenFreq
	if a.used < len(a.slab) {
		tf = &a.slab[a.used]
	} else {
		if len(a.extra) == 0 {
			a.extra = make([]bleveindex.TokenFreq, max(16, rest/60))
		}
		tf, a.extra = &a.extra[0], a.extra[1:]
	}
	a.used++
	*tf = bleveindex.TokenFreq{Term: term}
	return tf
}

// release returns the arena to the pool, emptied, unless it outgrew a
// pooled one; an arena whose slab ran out gets one as large as was used.
// Its map and TokenFreqs must no longer be read.
func (a *freqArena) release() {
	if a.used > maxArenaTerms {
		return
	}
	if a.used > len(a.slab) {
		a.slab = make([]bleveindex.TokenFreq, a.used)
	}
	a.extra, a.used = nil, 0
	clear(a.freqs)
	arenaPool.Put(a)
}

// isASCIIString reports whether s is all ASCII.
func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
