package chunk

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSplitShortText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   \n\t  ", nil},
		{"hello", []string{"hello"}},
		{"  hello world \n", []string{"hello world"}},
	} {
		got := Split(tc.in, 100, 10)
		if !equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitPrefersBoundaries(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{
			name: "paragraph over line and sentence",
			in:   "Alpha beta.\n\nGamma delta. Epsilon\nzeta eta theta",
			max:  40,
			want: []string{"Alpha beta.\n\nGamma delta. Epsilon", "zeta eta theta"},
		},
		{
			name: "paragraph",
			in:   "one two three four\n\nfive six seven eight nine",
			max:  30,
			want: []string{"one two three four", "five six seven eight nine"},
		},
		{
			name: "line",
			in:   "one two three\nfour five six seven eight",
			max:  25,
			want: []string{"one two three", "four five six seven eight"},
		},
		{
			name: "sentence",
			in:   "One two three. Four five six seven",
			max:  25,
			want: []string{"One two three.", "Four five six seven"},
		},
		{
			name: "sentence with closing quote",
			in:   `He said "stop." Then he left the room`,
			max:  25,
			want: []string{`He said "stop."`, "Then he left the room"},
		},
		{
			name: "word",
			in:   "alpha beta gamma delta epsilon",
			max:  14,
			want: []string{"alpha beta", "gamma delta", "epsilon"},
		},
		{
			name: "hard cut",
			in:   "abcdefghijklmnopqrstuvwxyz",
			max:  10,
			want: []string{"abcdefghij", "klmnopqrst", "uvwxyz"},
		},
		{
			name: "CJK sentence end",
			in:   "今日は晴れです。明日は雨が降るでしょう",
			max:  12,
			want: []string{"今日は晴れです。", "明日は雨が降るでしょう"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Split(tc.in, tc.max, 0)
			if !equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSplitOverlapAlignsToWords(t *testing.T) {
	in := "aa bb cc dd ee ff gg hh ii jj kk ll mm nn oo pp qq rr ss tt"
	got := Split(in, 20, 6)
	for i, c := range got {
		if len(c) > 20 {
			t.Fatalf("chunk %d too long: %q", i, c)
		}
		if i > 0 {
			words := strings.Fields(got[i-1])
			first := strings.Fields(c)[0]
			if words[len(words)-2] != first && words[len(words)-1] != first {
				t.Errorf("chunk %d %q does not start with an overlapping word of %q", i, c, got[i-1])
			}
		}
	}
	if last := got[len(got)-1]; !strings.HasSuffix(last, "tt") {
		t.Errorf("last chunk %q lost the end", last)
	}
}

func TestSplitClampsBadArguments(t *testing.T) {
	got := Split("abc def", 0, -5)
	if strings.Join(got, "") != "abcdef" {
		t.Errorf("maxLen 0: %q", got)
	}
	got = Split("abcdefgh", 3, 99)
	for _, c := range got {
		if utf8.RuneCountInString(c) > 3 {
			t.Errorf("overlap >= maxLen: chunk %q too long", c)
		}
	}
}

func TestSplitInvalidUTF8(t *testing.T) {
	got := Split("ab\xffcd \xfe\xfe ef", 4, 0)
	for _, c := range got {
		if !utf8.ValidString(c) {
			t.Errorf("chunk %q is not valid UTF-8", c)
		}
	}
}

// TestSplitProperties checks the invariants on many random texts: chunk
// length, no blank chunks, agreement with Spans, full coverage of the
// non-space text in order, and the size of the overlap.
func TestSplitProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 400 {
		text := randomText(rng, rng.IntN(5000))
		maxLen := 1 + rng.IntN(400)
		overlap := 0
		if maxLen > 1 && rng.IntN(4) > 0 {
			overlap = rng.IntN(maxLen)
		}
		t.Run("", func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("iteration %d: maxLen=%d overlap=%d text=%q", iter, maxLen, overlap, text)
				}
			}()
			checkProperties(t, text, maxLen, overlap)
		})
	}
}

func checkProperties(t *testing.T, text string, maxLen, overlap int) {
	t.Helper()
	chunks := Split(text, maxLen, overlap)
	spans := Spans(text, maxLen, overlap)
	if len(chunks) != len(spans) {
		t.Fatalf("Split gave %d chunks, Spans %d", len(chunks), len(spans))
	}
	runes := []rune(strings.ToValidUTF8(text, "\uFFFD"))
	covered := 0 // runes before this offset are known to be covered
	for i, c := range chunks {
		s := spans[i]
		if n := utf8.RuneCountInString(c); n > max(maxLen, 1) || n == 0 {
			t.Fatalf("chunk %d has %d runes (max %d)", i, n, maxLen)
		}
		if strings.TrimSpace(c) != c {
			t.Fatalf("chunk %d %q has untrimmed edges", i, c)
		}
		if string(runes[s.Start:s.End]) != c {
			t.Fatalf("chunk %d %q differs from its span %v", i, c, s)
		}
		for j := covered; j < s.Start; j++ {
			if !unicode.IsSpace(runes[j]) {
				t.Fatalf("rune %d %q is in no chunk", j, runes[j])
			}
		}
		if i > 0 {
			prev := spans[i-1]
			if s.Start <= prev.Start || s.End <= prev.End {
				t.Fatalf("span %v does not move past %v", s, prev)
			}
			if got := prev.End - s.Start; got > overlap {
				t.Fatalf("overlap %d exceeds %d", got, overlap)
			}
		}
		covered = max(covered, s.End)
	}
	for j := covered; j < len(runes); j++ {
		if !unicode.IsSpace(runes[j]) {
			t.Fatalf("trailing rune %d %q is in no chunk", j, runes[j])
		}
	}
}

func TestSplitOverlapSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	text := randomProse(rng, 200_000)
	for _, tc := range []struct{ max, overlap int }{{1024, 256}, {10000, 2048}, {2000, 1900}} {
		spans := Spans(text, tc.max, tc.overlap)
		slack := (tc.max - tc.overlap) / 2
		for i := 1; i < len(spans); i++ {
			got := spans[i-1].End - spans[i].Start
			// Word alignment may give up some runes, and trimming the
			// single space between words one more.
			if got > tc.overlap || got < tc.overlap-min(slack/2, tc.overlap/2)-1 {
				t.Fatalf("max %d: overlap between chunks %d and %d is %d, want about %d", tc.max, i-1, i, got, tc.overlap)
			}
		}
	}
}

func TestSplitDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	text := randomText(rng, 20000)
	a, b := Split(text, 300, 50), Split(text, 300, 50)
	if !equal(a, b) {
		t.Fatal("two runs differ")
	}
}

func TestValidate(t *testing.T) {
	c := ChunkerLimits()
	for _, tc := range []struct {
		max, overlap int
		field        string // "" when valid
	}{
		{ChunkerDefaultLength, ChunkerDefaultOverlap, ""},
		{30000, 15000, ""},
		{1024, 512, ""},
		{30000, 29999, "chunkOverlap"}, // 40 KB of text gave a 400 MB answer
		{1024, 513, "chunkOverlap"},
		{1023, 256, "chunkMaxLength"},
		{30001, 256, "chunkMaxLength"},
		{1024, 255, "chunkOverlap"},
		{1024, 1024, "chunkOverlap"},
	} {
		err := c.Validate(tc.max, tc.overlap, "chunkMaxLength", "chunkOverlap")
		if tc.field == "" {
			if err != nil {
				t.Errorf("%d/%d: unexpected %v", tc.max, tc.overlap, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.field+": ") {
			t.Errorf("%d/%d: got %v, want an error naming %s", tc.max, tc.overlap, err, tc.field)
		}
	}
	m := MemoryLimits()
	if err := m.Validate(MemoryDefaultSize, MemoryDefaultOverlap, "chunk_size", "chunk_overlap"); err != nil {
		t.Errorf("memory defaults rejected: %v", err)
	}
	if err := m.Validate(100, 0, "chunk_size", "chunk_overlap"); err != nil {
		t.Errorf("small memory chunks rejected: %v", err)
	}
	if err := m.Validate(30001, 0, "chunk_size", "chunk_overlap"); err == nil {
		t.Error("chunk_size 30001 accepted")
	}
	if err := m.Validate(2048, 2048, "chunk_size", "chunk_overlap"); err == nil {
		t.Error("overlap equal to size accepted")
	}
	if err := m.Validate(2000, 1999, "chunk_size", "chunk_overlap"); err == nil || !strings.Contains(err.Error(), "chunk_overlap: must be at most half of chunk_size (1000)") {
		t.Errorf("overlap 1999 of 2000: %v", err)
	}
	if err := m.Validate(1, 0, "chunk_size", "chunk_overlap"); err != nil || MaxOverlap(1) != 0 {
		t.Errorf("size 1: %v", err)
	}
}

// randomText mixes words, punctuation, line and paragraph breaks, runs of
// spaces and multi-byte runes, including long unbroken "words".
func randomText(rng *rand.Rand, n int) string {
	pieces := []string{"a", "word", "ünïcödé", "日本語の文", "emoji😀", "x", "Sentence.", "end!", "q?", "“quoted.”",
		" ", " ", " ", "  ", "\n", "\n\n", "\t", "\r\n", " \n \n", strings.Repeat("long", 40)}
	var b strings.Builder
	for utf8.RuneCountInString(b.String()) < n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// randomProse is words separated by single spaces with a paragraph break
// now and then: text where the overlap size is predictable.
func randomProse(rng *rand.Rand, n int) string {
	words := []string{"the", "memory", "retrieval", "chunk", "of", "a", "document", "engine", "Hearth", "index"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(200) == 0 {
			b.WriteString(".\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
