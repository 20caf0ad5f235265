package providers

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestDecodeOpenAIResponseAllocations: reading a plain answer (no web
// sources) allocates only for the answer itself: the response, its choice
// list and its strings (id, model, content and the content's pointer);
// the web sources, decoded only when named, cost nothing otherwise. An
// answer that names them still has them read.
func TestDecodeOpenAIResponseAllocations(t *testing.T) {
	raw := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Foxes."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	rd := bytes.NewReader(raw)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	call := &upstreamCall{resp: &http.Response{Body: io.NopCloser(rd), ContentLength: -1}, ctx: ctx, cancel: cancel,
		timer: startCallTimer(time.Hour, endFunc(func() {})), owner: &caller{}}
	h := hosts["openai"]
	resp, src, err := decodeOpenAIResponse(h, call)
	if err != nil || resp.ID != "chatcmpl-1" || *resp.Choices[0].Message.Content != "Foxes." || src.Citations != nil {
		t.Fatalf("decode = %+v, %+v, %v", resp, src, err)
	}
	n := testing.AllocsPerRun(100, func() {
		rd.Reset(raw)
		_, _, _ = decodeOpenAIResponse(h, call)
	})
	budget := 6.0 + 2*raceAllocs // the race detector moves values to the heap
	if n > budget {
		t.Fatalf("a plain answer costs %.0f allocations, want at most %.0f", n, budget)
	}
	withSources := []byte(`{"id":"c","choices":[],"citations":["https://example.com/a"]}`)
	rd.Reset(withSources)
	if _, src, err = decodeOpenAIResponse(h, call); err != nil || len(src.Citations) != 1 || src.Citations[0] != "https://example.com/a" {
		t.Fatalf("sources %+v, %v", src, err)
	}
}
