package chunk

import "testing"

// FuzzSplit checks the Split invariants on arbitrary text and arguments.
// The seed corpus in testdata/fuzz/FuzzSplit runs under plain go test.
func FuzzSplit(f *testing.F) {
	f.Add("Alpha beta.\n\nGamma delta. Epsilon\nzeta", 12, 4)
	f.Add("日本語の文。もう一つ！", 3, 1)
	f.Add("no-spaces-at-all-in-this-long-token", 5, 2)
	f.Fuzz(func(t *testing.T, text string, maxLen, overlap int) {
		maxLen = 1 + abs(maxLen)%2000
		overlap = abs(overlap) % maxLen
		checkProperties(t, text, maxLen, overlap)
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
