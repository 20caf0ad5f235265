package providers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonfast"
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
		r := jsonfast.NewReader(line)
		hand := readChatResponse(&r, new(chatResponseRoom), new(bool)) && r.End()
		if hand != handPathResponse(i, len(lines)) {
			t.Errorf("line %d %s: hand-written path %v", i+1, line, hand)
		}
	}
}

// TestDecodeChatResponseModels: answers naming models in turn, more than
// readModel keeps, with escapes, decode as encoding/json decodes them; a
// name with a backslash is never kept, since an answer spelling it raw
// would mean another name (a\u0041 is "aA").
func TestDecodeChatResponseModels(t *testing.T) {
	for _, m := range []string{`gpt-4o`, `a\\u0041`, `a\u0041`, `aA`, `a\u0041`, `m1`, `m2`, `m3`, `m4`, `m5`, `gpt-4o`, `gpt-4o`, `caf\u00e9`, `café`, ``} {
		doc := `{"id":"x","model":"` + m + `","choices":[]}`
		checkResponseSameAsJSON(t, []byte(doc))
	}
	for i := range models {
		if p := models[i].Load(); p != nil && strings.Contains(*p, `\`) {
			t.Fatalf("kept a model name with a backslash: %q", *p)
		}
	}
}

// TestDecodeChatResponsePastItsRoom: answers with more choices, strings
// or usage details than a chatResponseRoom holds decode on the
// hand-written path as encoding/json decodes them.
func TestDecodeChatResponsePastItsRoom(t *testing.T) {
	msg := func(c string) string {
		return `{"index":0,"message":{"role":"assistant","content":"` + c + `","refusal":"no ` + c + `"},"logprobs":null,"finish_reason":"stop"}`
	}
	usage := `"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":2}}`
	for _, doc := range []string{
		`{"id":"a","choices":[` + msg("one") + `,` + msg("two") + `,` + msg("three") + `],"system_fingerprint":"fp",` + usage + `}`,
		`{"id":"a","choices":[],"system_fingerprint":null,` + usage + `}`,
		`{"id":"a","choices":[` + msg("one") + `,{"index":1,"message":null}],"system_fingerprint":"fp"}`,
	} {
		checkResponseSameAsJSON(t, []byte(doc))
		r := jsonfast.NewReader([]byte(doc))
		if !readChatResponse(&r, new(chatResponseRoom), new(bool)) || !r.End() {
			t.Errorf("%s: not on the hand-written path", doc)
		}
	}
}

// BenchmarkDecodeChatResponseAllocs: what a plain answer costs, at most 4
// allocations on Go 1.26: the text of its id, content and fingerprint (its
// model's is the last answer's), and one chatResponseRoom for the
// response, its choice, the two usage details and the content's and
// fingerprint's pointers (encoding/json: 23).
func BenchmarkDecodeChatResponseAllocs(b *testing.B) {
	line := recordedResponses(b)[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeChatResponse(line); err != nil {
			b.Fatal(err)
		}
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
