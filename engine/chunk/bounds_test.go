package chunk

import (
	"runtime"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestOverlapBoundsOutput: with the largest overlap Validate accepts, the
// chunks of a text hold at most about four times its bytes, whatever the
// length; an overlap of length-1, which Validate refuses, made a chunk
// per rune.
func TestOverlapBoundsOutput(t *testing.T) {
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 700) // 40 KB
	for _, maxLen := range []int{1024, 4000, 30000} {
		overlap := MaxOverlap(maxLen)
		if err := ChunkerLimits().Validate(maxLen, overlap, "chunkMaxLength", "chunkOverlap"); err != nil {
			t.Fatal(err)
		}
		var out []string
		alloc := allocated(func() { out = Split(text, maxLen, overlap) })
		total := 0
		for _, c := range out {
			total += len(c)
		}
		if total > 4*len(text)+maxLen {
			t.Errorf("%d/%d: %d bytes of chunks from %d", maxLen, overlap, total, len(text))
		}
		// The chunks share the text's memory: only the slice of headers
		// is allocated.
		if alloc > uint64(len(text)) {
			t.Errorf("%d/%d: allocated %d bytes for %d bytes of text", maxLen, overlap, alloc, len(text))
		}
	}
}

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestSplitWithin(t *testing.T) {
	text := strings.Repeat("word ", 10_000) // 50 KB
	if out, err := SplitWithin(text, 1024, 256, ChunkerBounds(), "content"); err != nil || len(out) < 60 {
		t.Fatalf("%d chunks, %v", len(out), err)
	}
	for _, tc := range []struct {
		b    Bounds
		want string
	}{
		{Bounds{MaxChunks: 10}, "content: would make 65 chunks, more than the limit of 10"},
		{Bounds{MaxBytes: 60_000}, "content: would make more than 60000 bytes of chunks, the limit"},
	} {
		out, err := SplitWithin(text, 1024, 256, tc.b, "content")
		var e *engine.Error
		if out != nil || err == nil || !errorsAs(err, &e) || e.Code != engine.CodeBadRequest || e.Field != "content" || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.b, err, tc.want)
		}
	}
}

func errorsAs(err error, e **engine.Error) bool {
	x, ok := err.(*engine.Error)
	*e = x
	return ok
}
