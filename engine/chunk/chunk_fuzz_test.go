package chunk

import (
	"strings"
	"testing"
)

// FuzzSplit checks the Split invariants on arbitrary text and arguments,
// and that settings MemoryLimits accepts (which share the chunker's
// overlap rule) give chunks of at most five times the text's bytes. The
// seed corpus in testdata/fuzz/FuzzSplit, which holds the overlap bomb
// (overlap just below the length), runs under plain go test.
func FuzzSplit(f *testing.F) {
	f.Add("Alpha beta.\n\nGamma delta. Epsilon\nzeta", 12, 4)
	f.Add("日本語の文。もう一つ！", 3, 1)
	f.Add("no-spaces-at-all-in-this-long-token", 5, 2)
	f.Fuzz(func(t *testing.T, text string, maxLen, overlap int) {
		maxLen = 1 + abs(maxLen)%2000
		overlap = abs(overlap) % maxLen
		checkProperties(t, text, maxLen, overlap)
		if MemoryLimits().Validate(maxLen, overlap, "chunk_size", "chunk_overlap") != nil {
			return
		}
		total := 0
		for _, c := range Split(text, maxLen, overlap) {
			total += len(c)
		}
		if bound := 5*len(strings.ToValidUTF8(text, "\uFFFD")) + 4; total > bound {
			t.Fatalf("%d/%d: %d bytes of chunks from %d bytes of text, past %d", maxLen, overlap, total, len(text), bound)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}
