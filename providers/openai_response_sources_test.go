package providers

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// plainAnswer is an OpenAI answer without web sources.
var plainAnswer = []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Foxes."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)

// readerCall is an upstream call whose answer is read from rd.
func readerCall(rd *bytes.Reader) (*upstreamCall, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &upstreamCall{resp: &http.Response{Body: io.NopCloser(rd), ContentLength: -1}, ctx: ctx, cancel: cancel,
		timer: startCallTimer(time.Hour, endFunc(func() {})), owner: &caller{}}, cancel
}

// TestDecodeOpenAIResponseSources: a plain answer (no web sources) reads
// without them; an answer that names them has them read.
func TestDecodeOpenAIResponseSources(t *testing.T) {
	rd := bytes.NewReader(plainAnswer)
	call, cancel := readerCall(rd)
	defer cancel(nil)
	h := hosts["openai"]
	resp, src, err := decodeOpenAIResponse(h, call)
	if err != nil || resp.ID != "chatcmpl-1" || *resp.Choices[0].Message.Content != "Foxes." || src.Citations != nil {
		t.Fatalf("decode = %+v, %+v, %v", resp, src, err)
	}
	withSources := []byte(`{"id":"c","choices":[],"citations":["https://example.com/a"]}`)
	rd.Reset(withSources)
	if _, src, err = decodeOpenAIResponse(h, call); err != nil || len(src.Citations) != 1 || src.Citations[0] != "https://example.com/a" {
		t.Fatalf("sources %+v, %v", src, err)
	}
}

// BenchmarkDecodeOpenAIResponseAllocs: reading a plain answer (no web
// sources, so they are not decoded) with encoding/json.
func BenchmarkDecodeOpenAIResponseAllocs(b *testing.B) {
	rd := bytes.NewReader(plainAnswer)
	call, cancel := readerCall(rd)
	defer cancel(nil)
	h := hosts["openai"]
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(plainAnswer)
		if _, _, err := decodeOpenAIResponse(h, call); err != nil {
			b.Fatal(err)
		}
	}
}
