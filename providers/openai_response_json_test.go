package providers

import (
	"encoding/json"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonread"
)

// recordedResponses returns the lines of testdata/openai_responses.jsonl:
// non-stream chat completions in the shapes OpenAI (text, tool calls),
// DeepSeek (reasoning_content, cache counters), Groq (timings, x_groq),
// OpenRouter, Mistral, Perplexity (citations, search_results) and Gemini
// (extra_content) send, then edge cases (escapes, nulls, web annotations,
// logprobs, upper-case and duplicate keys, floats for integers, invalid
// UTF-8, lone surrogates, invalid JSON, an error body).
func recordedResponses(t testing.TB) [][]byte {
	return recordedLines(t, "openai_responses.jsonl")
}

// handPathResponse reports whether the hand-written decoder must take the
// recorded line i of n: every provider shape (the first fourteen lines),
// the error body (no field matches its key) and the answers with empty
// tool calls and with a null message and details.
func handPathResponse(i, n int) bool { return i < 14 || i >= n-4 && i < n-1 }

func checkResponseSameAsJSON(t *testing.T, data []byte) {
	t.Helper()
	checkDecodeSameAsJSON(t, data, decodeChatResponse)
}

func TestDecodeChatResponseMatchesEncodingJSON(t *testing.T) {
	lines := recordedResponses(t)
	for i, line := range lines {
		checkResponseSameAsJSON(t, line)
		r := jsonread.New(line)
		hand := readChatResponse(&r, new(engine.ChatResponse), new(bool)) && r.End()
		if hand != handPathResponse(i, len(lines)) {
			t.Errorf("line %d %s: hand-written path %v", i+1, line, hand)
		}
	}
}

// TestDecodeChatResponseAllocations counts what a plain answer costs: the
// response, its id, model, choices, content, fingerprint and the two
// usage details (encoding/json: 23).
func TestDecodeChatResponseAllocations(t *testing.T) {
	if raceAllocs > 0 {
		t.Skip("the race detector adds allocations of its own")
	}
	line := recordedResponses(t)[0]
	got := testing.AllocsPerRun(50, func() {
		if _, err := decodeChatResponse(line); err != nil {
			t.Fatal(err)
		}
	})
	if got > 10 {
		t.Errorf("%.0f allocations, want at most 10", got)
	}
}

func FuzzDecodeChatResponse(f *testing.F) {
	for _, line := range recordedResponses(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkResponseSameAsJSON(t, data)
	})
}

func BenchmarkDecodeChatResponse(b *testing.B) {
	line := recordedResponses(b)[0]
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			decodeChatResponse(line)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			json.Unmarshal(line, new(engine.ChatResponse))
		}
	})
}
