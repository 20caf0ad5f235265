package providers

import "testing"

// recordedChunks returns the lines of testdata/openai_chunks.jsonl:
// chat.completion.chunk events in the shapes OpenAI, DeepSeek, Groq,
// OpenRouter, Mistral and Perplexity stream, plus edge cases
// (escapes, nulls, upper-case and duplicate keys, floats for integers,
// invalid JSON) that must reach encoding/json's result.
func recordedChunks(t testing.TB) [][]byte {
	return recordedLines(t, "openai_chunks.jsonl")
}

// checkSameAsJSON fails when decodeChunk and json.Unmarshal disagree on
// data: both must fail, or both give the same value.
func checkSameAsJSON(t *testing.T, data []byte, cs *chunkStrings) {
	t.Helper()
	checkDecodeSameAsJSON(t, data, func(b []byte) (*oaiStreamEvent, error) { return decodeChunk(b, cs) })
}

func TestDecodeChunkMatchesEncodingJSON(t *testing.T) {
	var cs chunkStrings
	for _, line := range recordedChunks(t) {
		checkSameAsJSON(t, line, &cs)
	}
}

// TestDecodeChunkFastPath checks that the common events take the
// hand-written path (an allocation count, not a timing): encoding/json
// costs about 13 allocations an event, the fast path at most one for the
// event and one for the text, shares of the stream's blocks (a few more
// for usage and tool calls).
func TestDecodeChunkFastPath(t *testing.T) {
	lines := recordedChunks(t)
	var cs chunkStrings
	for i, max := range map[int]float64{1: 2, 2: 2, 3: 1, 4: 4, 5: 5, 6: 5} {
		n := testing.AllocsPerRun(50, func() {
			if _, err := decodeChunk(lines[i], &cs); err != nil {
				t.Fatal(err)
			}
		})
		if n > max+raceAllocs {
			t.Errorf("line %d: %.0f allocations, want at most %.0f: %s", i+1, n, max, lines[i])
		}
	}
}

func FuzzDecodeChunk(f *testing.F) {
	for _, line := range recordedChunks(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var cs chunkStrings
		checkSameAsJSON(t, data, &cs)
	})
}

// BenchmarkDecodeChunk decodes the recorded chunks the hand-written path
// takes (the first lines of testdata/openai_chunks.jsonl).
func BenchmarkDecodeChunk(b *testing.B) {
	lines := recordedChunks(b)[:6]
	var cs chunkStrings
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := decodeChunk(lines[i%len(lines)], &cs); err != nil {
			b.Fatal(err)
		}
	}
}
