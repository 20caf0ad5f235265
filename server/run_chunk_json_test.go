package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// recordedChunks are the stream chunks of the providers' recorded upstream
// streams (../providers/testdata/openai_chunks.jsonl) that encoding/json
// decodes, plus chunks the relays build: a usage-only final chunk, tool
// call deltas with extra_content, escapes, annotations and logprobs.
func recordedChunks(t testing.TB) []*engine.ChatChunk {
	out := recordedUpstream[engine.ChatChunk](t, "openai_chunks.jsonl")
	text, empty, stop, idx := "<b>caf\u00e9</b> & \u2028 \xff \"q\"\n", "", "stop", 1
	out = append(out,
		&engine.ChatChunk{ID: "x", Object: "chat.completion.chunk", Choices: []engine.ChunkChoice{}, Usage: &engine.Usage{PromptTokens: 3,
			PromptTokensDetails: &engine.PromptTokensDetails{CachedTokens: 1}, CompletionTokensDetails: &engine.CompletionTokensDetails{ReasoningTokens: 2}}},
		&engine.ChatChunk{ID: text, Model: text, SystemFingerprint: &text, Choices: []engine.ChunkChoice{
			{Delta: engine.Delta{Role: "assistant", Content: &empty, Refusal: &text}},
			{Index: 1, Delta: engine.Delta{ToolCalls: []engine.ToolCall{{Index: &idx, ID: "c<1>", Type: "function",
				Function: engine.FunctionCall{Name: "f", Arguments: `{"a":"<&>"}`}, ExtraContent: json.RawMessage(` {"google": {"s": "<x>"}} `)}}},
				FinishReason: &stop}}},
		&engine.ChatChunk{},
		&engine.ChatChunk{Choices: []engine.ChunkChoice{{Delta: engine.Delta{Annotations: []any{map[string]any{"type": "url_citation"}}}}}},
		&engine.ChatChunk{Choices: []engine.ChunkChoice{{Logprobs: map[string]any{"content": nil}}}},
	)
	return out
}

// encoderEvent is the event the writer's encoding/json path writes for v.
func encoderEvent(t *testing.T, v any, ndjson bool) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		t.Fatal(err)
	}
	if ndjson {
		return buf.String()
	}
	return "data: " + strings.TrimSuffix(buf.String(), "\n") + sseTerminator
}

func TestChunkEventsMatchEncoder(t *testing.T) {
	e := echo.New()
	for i, chunk := range recordedChunks(t) {
		for _, ndjson := range []bool{false, true} {
			rec := httptest.NewRecorder()
			c := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil), rec)
			w := newSSEWriter(c)
			if ndjson {
				w = newNDJSONWriter(c, "application/x-ndjson")
			}
			// Twice: the second event reuses the frame buffer.
			for range 2 {
				if err := w.Event(chunk); err != nil {
					t.Fatal(err)
				}
			}
			want := encoderEvent(t, chunk, ndjson)
			if got := rec.Body.String(); got != want+want {
				t.Fatalf("chunk %d (ndjson %v):\n got %q\nwant %q", i, ndjson, got, want+want)
			}
		}
		_, hand := appendChunkEvent(nil, chunk)
		plain := true
		for _, ch := range chunk.Choices {
			plain = plain && ch.Logprobs == nil && len(ch.Delta.Annotations) == 0
		}
		if hand != plain {
			t.Errorf("chunk %d: hand-written path %v", i, hand)
		}
	}
}

// TestChunkEventAllocations holds a text delta's event to no allocation
// once the writer's frame buffer exists (encoding/json: the reflection of
// each pointer field). One of the few allocation tests: a stream writes
// one such event per upstream event, and the zero is structural (the
// hand-written appender writes into the writer's reused frame buffer),
// not a measured figure; TestChunkEventsMatchEncoder checks the
// hand-written path is taken. It runs without the race detector only
// (make test-norace).
func TestChunkEventAllocations(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector moves values to the heap; make test-norace runs this test")
	}
	e := echo.New()
	w := flushWriter{&discardWriter{h: http.Header{}}}
	c := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", http.NoBody), w)
	ew := newSSEWriter(c)
	chunk := recordedChunks(t)[1]
	ew.Event(chunk)
	if n := testing.AllocsPerRun(100, func() { ew.Event(chunk) }); n > 0 {
		t.Errorf("%.0f allocations per event, want 0", n)
	}
}

// flushWriter is a discardWriter that flushes, as the server's writer
// does (without Flush, every flush allocates its not-supported error).
type flushWriter struct{ *discardWriter }

func (flushWriter) Flush() {}

func FuzzChunkEvents(f *testing.F) {
	for _, line := range recordedUpstreamLines(f, "openai_chunks.jsonl") {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		chunk := new(engine.ChatChunk)
		if json.Unmarshal(data, chunk) != nil {
			return
		}
		var buf bytes.Buffer
		if json.NewEncoder(&buf).Encode(chunk) != nil {
			return
		}
		if got, ok := appendChunkEvent(nil, chunk); ok && string(got) != buf.String() {
			t.Fatalf("%s:\n got %s\nwant %s", data, got, buf.Bytes())
		}
	})
}

func BenchmarkChunkEvent(b *testing.B) {
	chunk := recordedChunks(b)[1]
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			appendChunkEvent(buf[:0], chunk)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		for b.Loop() {
			buf.Reset()
			enc.Encode(chunk)
		}
	})
}
