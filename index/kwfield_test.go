package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	bleveindex "github.com/blevesearch/bleve_index_api"

	"github.com/hearth-dev/hearth/engine"
)

// freqString renders a field's length and term frequencies in term order.
func freqString(length int, tf bleveindex.TokenFrequencies) string {
	terms := make([]string, 0, len(tf))
	for k, v := range tf {
		if string(v.Term) != k {
			return fmt.Sprintf("term %q under key %q", v.Term, k)
		}
		terms = append(terms, fmt.Sprintf("%q:%d", k, v.Frequency()))
	}
	slices.Sort(terms)
	return fmt.Sprintf("%d %s", length, strings.Join(terms, " "))
}

// textFieldString is what Bleve's TextField with the named analyzer makes
// of text, as a keyword index's mapping indexes it.
func textFieldString(t testing.TB, analyzer, text string) string {
	an, err := registry.NewCache().AnalyzerNamed(analyzer)
	if err != nil {
		t.Fatal(err)
	}
	f := document.NewTextFieldCustom(keywordField, nil, []byte(text), bleveindex.IndexField, an)
	f.Analyze()
	return freqString(f.AnalyzedLength(), f.AnalyzedTokenFrequencies())
}

func testEnglish(t testing.TB) *englishAnalysis {
	kw, err := openKeyword(filepath.Join(t.TempDir(), "m"), "en", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kw.close() })
	if kw.eng == nil {
		t.Fatal("a new hearth_en index does not use the one-pass analysis")
	}
	return kw.eng
}

// sameField fails unless the one-pass analysis gives text the terms,
// frequencies and length of Bleve's TextField with hearth_en, and of
// Bleve's own en analyzer.
func sameField(t testing.TB, a *englishAnalysis, text string) {
	t.Helper()
	f := &englishField{text: text, an: a}
	f.Analyze()
	got := freqString(f.AnalyzedLength(), f.AnalyzedTokenFrequencies())
	for _, name := range []string{fastEnglishAnalyzer, en.AnalyzerName} {
		if want := textFieldString(t, name, text); got != want {
			t.Fatalf("field of %q:\n got %s\nwant %s (%s)", text, got, want, name)
		}
	}
	if got, want := f.Size(), reflectStaticSizeEnglishField+len(text)+f.freqs.Size(); got != want {
		t.Fatalf("Size of the field of %q is %d, want %d", text, got, want)
	}
}

// TestEnglishFieldSizeRecorded: a field's Size is counted while it is
// analysed, not by walking its frequencies each time Bleve asks (about
// 1 % of ingestion's CPU time).
func TestEnglishFieldSizeRecorded(t *testing.T) {
	a := testEnglish(t)
	f := &englishField{text: "Otters hold hands; the otters' dens are by the river.", an: a}
	f.Analyze()
	want := reflectStaticSizeEnglishField + len(f.text) + f.freqs.Size()
	clear(f.freqs)
	if got := f.Size(); got != want {
		t.Fatalf("Size %d after the frequencies were cleared, want the %d recorded", got, want)
	}
}

func TestEnglishFieldSameAsTextField(t *testing.T) {
	a := testEnglish(t)
	for _, s := range []string{
		"", "abc", "The the THE", "John's JOHN'S dog'S it's 's x's a'b's", "running runs runner ran",
		"don't stop", "e.g. 1,000 3.5km a_b __ 1_a", "The Otters' dens, e.g. 3.5km (see https://example.com/a_b?x=1;y=2).",
		strings.Repeat("x", stemMaxTerm+5) + "ing " + strings.Repeat("y", stemMaxTerm) + "s",
		"# Title\n\n- item one\n| a | b |\n```go\nfunc f() {}\n```", "naïve café's", "a’s ‘quoted’", "日本語 text",
	} {
		sameField(t, a, s)
	}
	const alphabet = "aZsS09_:.,;'\" \n-!#"
	words := strings.Fields("the of and to a in is that for running runs generalization connected relational hopefulness ponies caresses")
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 2000; n++ {
		var b strings.Builder
		for k := r.IntN(40); k > 0; k-- {
			if r.IntN(3) == 0 {
				for j := 1 + r.IntN(6); j > 0; j-- {
					b.WriteByte(alphabet[r.IntN(len(alphabet))])
				}
			} else {
				w := words[r.IntN(len(words))]
				if r.IntN(4) == 0 {
					w = strings.ToUpper(w)
				}
				b.WriteString(w)
				b.WriteByte(" ,.'\n"[r.IntN(5)])
			}
		}
		sameField(t, a, b.String())
	}
}

func FuzzEnglishField(f *testing.F) {
	for _, s := range []string{"John's dog's RUNS", "e.g. x_1:y don't", "naïve café", "1.2.3 a..b 's"} {
		f.Add(s)
	}
	a := testEnglish(f)
	f.Fuzz(func(t *testing.T, s string) { sameField(t, a, s) })
}

// TestEnglishForMappings: only indexes whose text field is analysed by
// hearth_en use the one-pass analysis; indexes made with "en" before
// hearth_en existed, and other analyzers, keep Bleve's mapping.
func TestEnglishForMappings(t *testing.T) {
	dir := t.TempDir()
	if testEnglish(t) == nil {
		t.Fatal("hearth_en")
	}
	kw, err := openKeyword(filepath.Join(dir, "std"), "standard", true)
	if err != nil {
		t.Fatal(err)
	}
	defer kw.close()
	if kw.eng != nil {
		t.Fatal("standard uses the English one-pass analysis")
	}
	old := newKeywordIndexWithMapping(t, filepath.Join(dir, "old"), en.AnalyzerName)
	if old.eng != nil {
		t.Fatal("an en index uses the hearth_en one-pass analysis")
	}
}

// BenchmarkEnglishFieldAllocs: a 10 KB chunk's terms are counted without
// a token per word (Bleve's analyzer and TokenFrequency allocate several
// hundred objects for this text), and a field released after its batch
// hands its map and TokenFreqs to the next chunk's analysis: at most one
// allocation analysed and released, at most eight analysed alone (Go
// 1.26). A collection empties the sync.Pool the released tables go back
// to and would count a refill, so none runs while it measures.
func BenchmarkEnglishFieldAllocs(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	a := testEnglish(b)
	text := strings.Repeat("The otters' dens, e.g. 3.5 km from the river_bank: 1,000 fish; don't count. ", 130)
	f := &englishField{text: text, an: a}
	f.Analyze() // fill the stem cache
	f.release()
	b.Run("released", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.Analyze()
			f.release()
		}
	})
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.Analyze()
		}
	})
}

// TestEnglishFieldReleasedArenaReused: the frequencies of a chunk analysed
// with a released field's arena are the chunk's own, not the mixture of
// both (the map is emptied, each TokenFreq's count starts at zero).
func TestEnglishFieldReleasedArenaReused(t *testing.T) {
	a := testEnglish(t)
	first := &englishField{text: strings.Repeat("otters swim and otters sleep near rivers; ", 40), an: a}
	first.Analyze()
	first.release()
	if first.freqs != nil || first.arena != nil {
		t.Fatal("a released field keeps its frequencies")
	}
	for _, text := range []string{"Rivers hold otters, herons and fish.", strings.Repeat("fish swim; herons wait. ", 200)} {
		sameField(t, a, text)
	}
}

// TestEnglishFieldSameSearch: an index written with the one-pass analysis,
// and one written half through Bleve's mapping and half with it (a data
// dir written before, then by this code), answer every query with the
// same hits and BM25 scores as one written through Bleve's mapping.
func TestEnglishFieldSameSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("alpha beta gamma delta running runs runner connection connected the of and naïve café John's otters' 3.5 1,000 e.g.")
	var chunks []engine.IndexedChunk
	for i := range 300 {
		var b strings.Builder
		for k := 5 + r.IntN(80); k > 0; k-- {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		chunks = append(chunks, engine.IndexedChunk{ID: fmt.Sprintf("c%03d", i), Text: b.String()})
	}
	dir := t.TempDir()
	open := func(name string) *keywordIndex {
		kw, err := openKeyword(filepath.Join(dir, name), "en", true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { kw.close() })
		return kw
	}
	bleveOnly, fast, mixed := open("bleve"), open("fast"), open("mixed")
	eng := bleveOnly.eng
	bleveOnly.eng = nil
	for i := 0; i < len(chunks); i += 50 {
		for _, kw := range []*keywordIndex{bleveOnly, fast, mixed} {
			if kw == mixed {
				kw.eng = nil
				if i >= 150 {
					kw.eng = eng
				}
			}
			if err := kw.apply(chunks[i:i+50], []string{"c007", fmt.Sprintf("c%03d", i+3)}, uint64(i+1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, q := range []string{"alpha", "run", "connections gamma", "naïve", "cafe café", "john", "otter", "3.5", "the", "e.g.", "delta beta alpha"} {
		want, err := bleveOnly.search(context.Background(), q, 50, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 && q != "the" {
			t.Fatalf("%q: no hits", q)
		}
		for name, kw := range map[string]*keywordIndex{"fast": fast, "mixed": mixed} {
			got, err := kw.search(context.Background(), q, 50, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Bleve orders equal scores by segment, which background
			// merges change: compare ties in id order.
			if fmt.Sprint(byScoreID(got)) != fmt.Sprint(byScoreID(want)) {
				t.Fatalf("%s, %q:\n got %v\nwant %v", name, q, got, want)
			}
		}
	}
}

// newKeywordIndexWithMapping creates a keyword index whose text field has
// the named analyzer as it is, as Hearth made "en" indexes before
// hearth_en existed.
func newKeywordIndexWithMapping(t *testing.T, dir, analyzer string) *keywordIndex {
	t.Helper()
	m := keywordMapping("standard").(*mapping.IndexMappingImpl)
	m.DefaultAnalyzer = analyzer
	m.DefaultMapping.Properties[keywordField].Fields[0].Analyzer = analyzer
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	kw, err := openKeyword(dir, "", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kw.close() })
	if got := kw.idx.Mapping().AnalyzerNameForPath(keywordField); got != analyzer {
		t.Fatalf("analyzer %s, want %s", got, analyzer)
	}
	return kw
}

// byScoreID sorts hits by score, best first, and equal scores by id.
func byScoreID(h []engine.ChunkHit) []engine.ChunkHit {
	slices.SortFunc(h, func(a, b engine.ChunkHit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return h
}

// BenchmarkEnglishField compares Bleve's TextField with hearth_en and the
// one-pass analysis on 10 KB chunks of Zipf-distributed words.
func BenchmarkEnglishField(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%xor%c", i*7919, 'a'+rune(i%26))
	}
	copy(vocab, strings.Fields("the of and to a in is that for it as was with be by on not he this are or his from at"))
	z := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	texts := make([]string, 16)
	for i := range texts {
		var s strings.Builder
		for s.Len() < 10000 {
			s.WriteString(vocab[z.Uint64()])
			s.WriteString(" ,.\n"[r.IntN(4):][:1])
		}
		texts[i] = s.String()
	}
	an, err := registry.NewCache().AnalyzerNamed(fastEnglishAnalyzer)
	if err != nil {
		b.Fatal(err)
	}
	a := testEnglish(b)
	b.Run("bleve", func(b *testing.B) {
		b.SetBytes(10000)
		for i := 0; i < b.N; i++ {
			f := document.NewTextFieldCustom(keywordField, nil, []byte(texts[i%len(texts)]), bleveindex.IndexField, an)
			f.Analyze()
		}
	})
	b.Run("one-pass", func(b *testing.B) {
		b.SetBytes(10000)
		for i := 0; i < b.N; i++ {
			f := &englishField{text: texts[i%len(texts)], an: a}
			f.Analyze()
			f.release()
		}
	})
}

// TestEnglishFieldManyDistinctTerms: a text with more distinct terms than
// the per-text tables take (they fill at three quarters) counts the terms
// that come after, and terms sharing a stem before and after, as Bleve
// does.
func TestEnglishFieldManyDistinctTerms(t *testing.T) {
	a := testEnglish(t)
	var s strings.Builder
	s.WriteString("connect connected otters ")
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&s, "w%dq ", i)
	}
	s.WriteString("connecting connection otter's otters running runs run")
	sameField(t, a, s.String())
	seen := newSeenTerms(s.Len())
	defer seen.release()
	if 4000 < 3*len(seen.stems)/4 {
		t.Fatalf("the text does not fill a table of %d stems", len(seen.stems))
	}
}
