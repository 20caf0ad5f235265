package chunk

import (
	"strings"
	"testing"
)

// FuzzStructure checks the bounds of Split on structure-aware chunking in
// both of its forms: every piece at most maxLen runes, trimmed, at its
// offset, in order, covering every non-whitespace rune; with an overlap
// MemoryLimits accepts, the pieces hold at most five times the text's
// bytes and the parents at most the text's bytes again.
func FuzzStructure(f *testing.F) {
	f.Add("# A\n\ntext\n\n## B\n\n```\ncode\n\nmore\n```\n\n| a | b |\n| 1 | 2 |\n", 12, 4, 30)
	f.Add("# 日本\n\n語の文。もう一つ！\n### 深い\n", 3, 1, 3)
	f.Add("~~~\n# no heading\n~~~~\n#x\n#######\n# \n#", 5, 2, 1)
	f.Add(strings.Repeat("ab ", 200)+"\n\n# H\n"+strings.Repeat("x", 300), 20, 19, 50)
	f.Fuzz(func(t *testing.T, text string, maxLen, overlap, parentLen int) {
		maxLen = 1 + abs(maxLen)%2000
		overlap = abs(overlap) % maxLen
		parentLen = abs(parentLen) % 4000
		pieces := Structure(text, maxLen, overlap)
		checkStructure(t, text, maxLen, pieces)
		children, parents := StructureParents(text, maxLen, overlap, parentLen)
		checkStructure(t, text, maxLen, children)
		for _, c := range children {
			if c.Parent < 0 || c.Parent >= len(parents) || !strings.Contains(parents[c.Parent], c.Text) {
				t.Fatalf("child %q is not in its parent", c.Text)
			}
		}
		for _, p := range parents {
			if n := len([]rune(p)); n > max(parentLen, maxLen) {
				t.Fatalf("parent of %d runes, past %d", n, max(parentLen, maxLen))
			}
		}
		if MemoryLimits().Validate(maxLen, overlap, "chunk_size", "chunk_overlap") != nil {
			return
		}
		bound := 5*len(strings.ToValidUTF8(text, "\uFFFD")) + 4
		if total := pieceBytes(pieces); total > bound {
			t.Fatalf("%d/%d: %d bytes of pieces from %d bytes of text", maxLen, overlap, total, len(text))
		}
		total := pieceBytes(children)
		for _, p := range parents {
			total += len(p)
		}
		if total > bound+len(text) {
			t.Fatalf("%d/%d/%d: %d bytes of children and parents from %d bytes of text", maxLen, overlap, parentLen, total, len(text))
		}
	})
}

func pieceBytes(ps []Piece) int {
	n := 0
	for _, p := range ps {
		n += len(p.Text)
	}
	return n
}
