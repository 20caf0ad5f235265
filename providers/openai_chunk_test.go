package providers

import (
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/engine/jsonfast"
)

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

// TestDecodeChunkFastPath checks that the common events (the recorded
// lines 2 to 7: text, role, finish, usage and tool call deltas) take the
// hand-written path, not encoding/json.
func TestDecodeChunkFastPath(t *testing.T) {
	lines := recordedChunks(t)
	var cs chunkStrings
	for i := 1; i <= 6; i++ {
		p := chunkParser{Reader: jsonfast.NewReader(lines[i]), ev: cs.event(), cs: &cs}
		if !p.chunk() || !p.End() {
			t.Errorf("line %d is not on the hand-written path: %s", i+1, lines[i])
		}
	}
}

// BenchmarkDecodeChunkAllocs: the common events on the hand-written path
// cost at most one allocation for the event and one for the text, shares
// of the stream's blocks (a few more for usage and tool calls; Go 1.26);
// encoding/json costs about 13 an event.
func BenchmarkDecodeChunkAllocs(b *testing.B) {
	lines := recordedChunks(b)
	for i := 1; i <= 6; i++ {
		b.Run(fmt.Sprintf("line %d", i+1), func(b *testing.B) {
			var cs chunkStrings
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeChunk(lines[i], &cs); err != nil {
					b.Fatal(err)
				}
			}
		})
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
