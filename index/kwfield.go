package index

import (
	"reflect"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/document"
	bleveindex "github.com/blevesearch/bleve_index_api"
)

// englishAnalysis indexes chunk texts of a keyword index whose mapping
// gives the text field hearth_en and nothing else (see englishFor). It
// makes the field's terms and frequencies in one pass over all-ASCII text:
// word boundaries, possessive, lower case, stop words, stem (through
// stemCache), counting; Bleve's path builds a token per word, runs each
// filter over the stream and counts in a map of its own (a quarter of
// ingestion's CPU on HTTP ingestion, docs/bench-log/2026-12-04.md).
// The terms, frequencies and field length are those of Bleve's TextField
// with the analyzer (a differential test and a fuzz target); text with any
// other byte goes through the analyzer itself. Documents indexed so also
// skip Bleve's "_all" composite field, empty in these mappings
// (IncludeInAll is off) and never searched. Nothing here is shared between
// nodes of a cluster: each process analyses what it indexes.
type englishAnalysis struct {
	general analysis.Analyzer // the index's hearth_en analyzer
	stop    *stopSet
}

// englishFor returns the one-pass analysis for idx, or nil when its
// mapping makes anything else of a chunk document than one indexed-only
// text field analysed by hearth_en as fastEnglish builds it; those go
// through Bleve's mapping as before.
func englishFor(idx bleve.Index) *englishAnalysis {
	m := idx.Mapping()
	doc := document.NewDocument("probe")
	if err := m.MapDocument(doc, keywordDoc{Text: "probe"}); err != nil || len(doc.Fields) != 1 {
		return nil
	}
	tf, ok := doc.Fields[0].(*document.TextField)
	if !ok || tf.Name() != keywordField || tf.Options() != bleveindex.IndexField || len(tf.ArrayPositions()) != 0 {
		return nil
	}
	an := m.AnalyzerNamed(fastEnglishAnalyzer)
	if an == nil || tf.Analyzer() != an {
		return nil
	}
	da, ok := an.(*analysis.DefaultAnalyzer)
	if !ok || len(da.CharFilters) != 0 || len(da.TokenFilters) != 4 {
		return nil
	}
	if _, ok := da.Tokenizer.(*fastUnicode); !ok {
		return nil
	}
	_, ok1 := da.TokenFilters[0].(*en.PossessiveFilter)
	_, ok2 := da.TokenFilters[1].(asciiLower)
	stop, ok3 := da.TokenFilters[2].(*stopSet)
	_, ok4 := da.TokenFilters[3].(cachedPorter)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil
	}
	return &englishAnalysis{general: an, stop: stop}
}

// document returns the chunk's Bleve document, its id and one
// englishField, and that field.
func (a *englishAnalysis) document(id, text string) (*document.Document, *englishField) {
	doc := document.NewDocument(id)
	f := &englishField{text: text, an: a}
	doc.AddField(f)
	return doc, f
}

// Sizes that TokenFrequencies.Size counts, from Bleve's own functions: an
// empty map, and an entry (key, pointer, TokenFreq) besides its key's and
// term's bytes.
var (
	freqsSizeEmpty = bleveindex.TokenFrequencies{}.Size()
	freqsSizeEntry = bleveindex.TokenFrequencies{"": &bleveindex.TokenFreq{}}.Size() - freqsSizeEmpty
)

// analyze returns the number of terms of text, their frequencies, as
// Bleve's TextField.Analyze does with the analyzer, and the frequencies'
// Size (counted as they are made: Bleve asks each document's size, and
// walking the map for it was about 1 % of ingestion's CPU time).
// With ASCII text, the map and its TokenFreqs are those of the returned
// arena (nil otherwise), to release when Bleve no longer reads them.
func (a *englishAnalysis) analyze(text string) (int, bleveindex.TokenFrequencies, int, *freqArena) {
	if !isASCIIString(text) {
		tokens := a.general.Analyze([]byte(text))
		freqs := analysis.TokenFrequency(tokens, nil, bleveindex.IndexField)
		return len(tokens), freqs, freqs.Size(), nil
	}
	seen := newSeenTerms(len(text))
	defer seen.release()
	b := append(seen.text[:0], text...) // the copy that is lowered in place
	seen.text = b
	arena := getArena(len(b))
	freqs := arena.freqs
	n, size := 0, freqsSizeEmpty
	for i := 0; ; {
		start, end, _ := nextASCIIWord(b, i)
		if start == end {
			break
		}
		i = end
		term := b[start:end]
		// Possessive: Bleve's filter drops a final "'s" (any case).
		if l := len(term); l >= 2 && (term[l-1] == 's' || term[l-1] == 'S') && term[l-2] == '\'' {
			term = term[:l-2]
		}
		h := uint32(2166136261)
		for j, c := range term {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
				term[j] = c
			}
			h = (h ^ uint32(c)) * 16777619
		}
		slot := seen.find(b, term, h)
		if slot != nil && slot.used {
			if slot.tf != nil {
				n++
				slot.tf.SetFrequency(slot.tf.Frequency() + 1)
			}
			continue
		}
		var tf *bleveindex.TokenFreq
		if !a.stop.hasHashed(term, h) {
			n++
			stem, key, sh := stemTermHashed(term, h)
			st, found := seen.findStem(stem, sh)
			if found {
				tf = st.tf
			} else if st == nil {
				tf = freqs[string(stem)] // the stem table is full
			}
			if tf == nil {
				tf = arena.take(len(b)-i, stem)
				if key == "" {
					key = string(stem)
				}
				freqs[key] = tf
				if st != nil {
					seen.putStem(st, sh, tf)
				}
				size += freqsSizeEntry + 2*len(stem) // the key and the term
			}
			tf.SetFrequency(tf.Frequency() + 1)
		}
		if slot != nil {
			seen.put(slot, start, start+len(term), h, tf)
		}
	}
	return n, freqs, size, arena
}

// seenSlot is a term seen in the text being analysed: the lower-cased
// term before stemming, b[start:end], and its frequency (nil for a stop
// word).
type seenSlot struct {
	used       bool
	h          uint32
	start, end int32
	tf         *bleveindex.TokenFreq
}

// seenTerms is an open-addressed table of the terms of one text, so a
// repeated term (most are) costs neither a stop-word check nor a stem
// lookup nor a map lookup. Tables are pooled per process; nothing is
// shared between nodes.
type seenTerms struct {
	slots []seenSlot // power-of-two length
	used  int
	text  []byte // the lower-cased copy of the text

	// stems holds the text's stems, so a term seen for the first time
	// finds its stem's frequency (if another term had the same stem)
	// without a lookup in the frequencies map, a cold one when the map is
	// reused (freqArena).
	stems     []stemSlot // as long as slots
	stemsUsed int
}

// stemSlot is a stem of the text being analysed, fnv1a hash h, and its
// frequency (nil: a free slot).
type stemSlot struct {
	h  uint32
	tf *bleveindex.TokenFreq
}

var seenPool = sync.Pool{New: func() any { return new(seenTerms) }}

// newSeenTerms returns an empty table for a text of size bytes: a slot
// per 8 bytes (a term per 6 bytes, repeated).
func newSeenTerms(size int) *seenTerms {
	t := seenPool.Get().(*seenTerms)
	n := 64
	for n < size/8 {
		n *= 2
	}
	if cap(t.slots) < n {
		t.slots = make([]seenSlot, n)
		t.stems = make([]stemSlot, n)
	} else {
		t.slots, t.stems = t.slots[:n], t.stems[:n]
		clear(t.slots)
		clear(t.stems)
	}
	t.used, t.stemsUsed = 0, 0
	return t
}

// findStem returns the slot of stem (hash h) and true when the text has
// it, the free slot where it goes and false when not, or nil and false
// when the table is three quarters full and stem is not in it (the caller
// then looks in the frequencies map).
func (t *seenTerms) findStem(stem []byte, h uint32) (*stemSlot, bool) {
	mask := uint32(len(t.stems) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.stems[i]
		if s.tf == nil {
			if 4*(t.stemsUsed+1) > 3*len(t.stems) {
				return nil, false
			}
			return s, false
		}
		if s.h == h && string(s.tf.Term) == string(stem) {
			return s, true
		}
	}
}

// putStem fills the free slot s with a stem's frequency.
func (t *seenTerms) putStem(s *stemSlot, h uint32, tf *bleveindex.TokenFreq) {
	*s = stemSlot{h: h, tf: tf}
	t.stemsUsed++
}

// find returns the slot of term (hash h, a subslice of b): the used slot
// holding it, or the free slot where it goes, or nil when the table is
// three quarters full and term is not in it.
func (t *seenTerms) find(b, term []byte, h uint32) *seenSlot {
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if !s.used {
			if 4*(t.used+1) > 3*len(t.slots) {
				return nil
			}
			return s
		}
		if s.h == h && string(b[s.start:s.end]) == string(term) {
			return s
		}
	}
}

// put fills the free slot s with the term b[start:end].
func (t *seenTerms) put(s *seenSlot, start, end int, h uint32, tf *bleveindex.TokenFreq) {
	*s = seenSlot{used: true, h: h, start: int32(start), end: int32(end), tf: tf}
	t.used++
}

// release returns the table, with its text buffer, to the pool unless it
// is larger than a 128 KB text needs.
func (t *seenTerms) release() {
	if len(t.slots) <= 16384 {
		seenPool.Put(t)
	}
}

var reflectStaticSizeEnglishField = int(reflect.TypeOf(englishField{}).Size())

// englishField is the text field of a chunk document analysed by
// englishAnalysis when Bleve's workers call Analyze. Its options are the
// mapping's (indexed only), so segments written either way are alike.
type englishField struct {
	text   string
	an     *englishAnalysis
	length int
	freqs  bleveindex.TokenFrequencies
	size   int        // freqs.Size()
	arena  *freqArena // freqs's, when pooled
}

// Name implements document.Field.
func (f *englishField) Name() string { return keywordField }

// ArrayPositions implements document.Field: the field is not in an array.
func (f *englishField) ArrayPositions() []uint64 { return nil }

// Options implements document.Field.
func (f *englishField) Options() bleveindex.FieldIndexingOptions { return bleveindex.IndexField }

// Analyze implements document.Field.
func (f *englishField) Analyze() { f.length, f.freqs, f.size, f.arena = f.an.analyze(f.text) }

// release hands the field's frequencies back for other chunks (see
// freqArena) once Bleve's Batch holding the field has returned.
func (f *englishField) release() {
	if f.arena != nil {
		f.arena.release()
	}
	f.arena, f.freqs = nil, nil
}

// Value implements document.Field.
func (f *englishField) Value() []byte { return []byte(f.text) }

// NumPlainTextBytes implements document.Field.
func (f *englishField) NumPlainTextBytes() uint64 { return uint64(len(f.text)) }

// Size implements document.Field: an estimate of the memory held.
func (f *englishField) Size() int {
	n := reflectStaticSizeEnglishField + len(f.text)
	if f.freqs != nil {
		n += f.size
	}
	return n
}

// EncodedFieldType implements document.Field: a text field.
func (f *englishField) EncodedFieldType() byte { return 't' }

// AnalyzedLength implements document.Field.
func (f *englishField) AnalyzedLength() int { return f.length }

// AnalyzedTokenFrequencies implements document.Field.
func (f *englishField) AnalyzedTokenFrequencies() bleveindex.TokenFrequencies { return f.freqs }
