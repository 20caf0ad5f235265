// Package chunk splits document text into overlapping chunks for embedding.
//
// Lengths are counted in runes (Unicode code points), never bytes, so a
// limit means the same thing for English, Greek or Japanese text. Cuts prefer,
// in order: a paragraph break, a line break, the end of a sentence, a word
// boundary, and only then a hard cut inside a word.
package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is one chunk as rune offsets [Start, End) into the text given to
// Spans. Start and End never fall on whitespace at the chunk's edges.
type Span struct {
	Start, End int
}

// Split cuts text into chunks of at most maxLen runes, consecutive chunks
// sharing about overlap runes (moved forward to a word start when one is
// near). Every chunk is a substring of text with its surrounding whitespace
// trimmed; no chunk is empty or whitespace-only, and every non-whitespace
// rune of text is in at least one chunk. The result is deterministic.
//
// Split does not reject bad arguments (use Limits.Validate for that): maxLen
// below 1 is taken as 1, and overlap is clamped to [0, maxLen-1].
func Split(text string, maxLen, overlap int) []string {
	t := newText(text)
	spans := spans(t, maxLen, overlap)
	out := make([]string, len(spans))
	if t.r == nil {
		for i, s := range spans {
			out[i] = t.s[s.Start:s.End]
		}
		return out
	}
	// Chunk starts and ends both increase monotonically, so two cursors
	// convert rune offsets to byte offsets in one pass over the text.
	var start, end cursor
	for i, s := range spans {
		start.advance(t.r, s.Start)
		end.advance(t.r, s.End)
		out[i] = t.s[start.b:end.b]
	}
	return out
}

// Spans returns the rune offsets of the chunks Split would return for text.
// Invalid UTF-8 is first replaced as strings.ToValidUTF8 does.
func Spans(text string, maxLen, overlap int) []Span {
	return spans(newText(text), maxLen, overlap)
}

// cursor walks a rune slice while tracking the matching UTF-8 byte offset.
type cursor struct{ r, b int }

func (c *cursor) advance(runes []rune, to int) {
	for ; c.r < to; c.r++ {
		c.b += utf8.RuneLen(runes[c.r])
	}
}

// text gives rune access to s: directly when s is ASCII, through r otherwise.
type text struct {
	s string
	r []rune
}

func newText(s string) text {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			if !utf8.ValidString(s) {
				s = strings.ToValidUTF8(s, "\uFFFD")
			}
			return text{s: s, r: []rune(s)}
		}
	}
	return text{s: s}
}

func (t text) len() int {
	if t.r == nil {
		return len(t.s)
	}
	return len(t.r)
}

func (t text) at(i int) rune {
	if t.r == nil {
		return rune(t.s[i])
	}
	return t.r[i]
}

func (t text) space(i int) bool { return isSpace(t.at(i)) }

func isSpace(c rune) bool {
	if c < utf8.RuneSelf {
		return c == ' ' || c >= '\t' && c <= '\r'
	}
	return unicode.IsSpace(c)
}

// Boundary kinds, from least to most preferred.
const (
	cutHard = iota
	cutWord
	cutSentence
	cutLine
	cutParagraph
)

func spans(t text, maxLen, overlap int) []Span {
	if maxLen < 1 {
		maxLen = 1
	}
	overlap = max(0, min(overlap, maxLen-1))
	n := t.len()
	// The cut is searched for in the last part of the window only, so each
	// step forward is at least about (maxLen-overlap)/2 runes: the scanning
	// work per chunk is proportional to the progress made, keeping Split
	// linear in the text length.
	slack := max(1, (maxLen-overlap)/2)
	var out []Span
	pos := skipSpace(t, 0, n)
	for pos < n {
		if n-pos <= maxLen {
			out = appendSpan(out, t, pos, n)
			break
		}
		end := pos + maxLen
		cut := bestCut(t, pos+maxLen-slack, end)
		out = appendSpan(out, t, pos, cut)
		rest := skipSpace(t, cut, n) // the first rune not yet in a chunk
		if rest == n {
			break
		}
		if overlap == 0 {
			pos = rest
			continue
		}
		// Keep at least half the overlap when moving to a word start.
		next := alignWord(t, cut-overlap, cut-overlap+min(slack/2, overlap/2))
		// After a long run of whitespace the next chunk must still reach
		// rest, or it would repeat the previous one.
		next = max(next, rest-maxLen+slack, pos+1)
		pos = skipSpace(t, next, n)
	}
	return out
}

// bestCut returns the end offset in [lo, hi] of the preferred boundary,
// scanning backwards from hi; hi itself (a hard cut) when there is none.
func bestCut(t text, lo, hi int) int {
	best, kind := hi, cutHard
	if hi < t.len() && t.space(hi) {
		best, kind = hi, cutWord
	}
	for i := hi; i > lo && i >= 2; i-- {
		if c := t.at(i - 1); c > ' ' && c < utf8.RuneSelf {
			continue // a printable ASCII rune ends no boundary
		}
		k := boundaryAt(t, i)
		if k > kind {
			best, kind = i, k
			if k == cutParagraph {
				break
			}
		}
	}
	return best
}

// boundaryAt classifies a cut just before t[i] (the chunk would end with t[i-1]).
func boundaryAt(t text, i int) int {
	c := t.at(i - 1)
	switch {
	case c == '\n':
		p := i - 2
		for p >= 0 && (t.at(p) == ' ' || t.at(p) == '\t' || t.at(p) == '\r') {
			p--
		}
		if p >= 0 && t.at(p) == '\n' {
			return cutParagraph
		}
		return cutLine
	case c == '。' || c == '！' || c == '？':
		return cutSentence
	case isSpace(c):
		p := t.at(i - 2)
		if (p == '"' || p == '\'' || p == ')' || p == '”' || p == '’') && i >= 3 {
			p = t.at(i - 3)
		}
		if p == '.' || p == '!' || p == '?' {
			return cutSentence
		}
		return cutWord
	}
	return cutHard
}

// alignWord moves i forward to the start of the next word when i falls
// inside one, looking no further than limit; it returns i unchanged when no
// word start is that close.
func alignWord(t text, i, limit int) int {
	if i <= 0 || t.space(i-1) || t.space(i) {
		return i
	}
	for j := i; j < limit && j < t.len(); j++ {
		if t.space(j) {
			return j
		}
	}
	return i
}

func skipSpace(t text, i, n int) int {
	for i < n && t.space(i) {
		i++
	}
	return i
}

// appendSpan appends [start, end) with trailing whitespace trimmed; start is
// already on a non-space rune.
func appendSpan(out []Span, t text, start, end int) []Span {
	for end > start && t.space(end-1) {
		end--
	}
	if end > start {
		out = append(out, Span{start, end})
	}
	return out
}
