package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestAnthropicFieldsBeyondOpenAI: what the OpenAI shape cannot say but
// the Messages surface needs comes back in the fields kept off the wire:
// thinking of an answer without tool calls, the stop sequence that ended
// it, and the prompt tokens written to the cache; plain and streamed.
func TestAnthropicFieldsBeyondOpenAI(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	m := anthropicModel(t, f, "claude-sonnet-4-5")
	req := func() *engine.ChatRequest {
		return &engine.ChatRequest{Model: "claude-sonnet-4-5", APIKey: "k", Messages: []engine.Message{userMsg("hi")}, Stop: []string{"END"},
			Extra: map[string]json.RawMessage{"thinking": json.RawMessage(`{"type":"enabled","budget_tokens":1024}`)}}
	}
	f.Enqueue(fake.Reply{Text: "ok", Reasoning: "hmm", Finish: "stop_sequence", Usage: fake.Usage{PromptTokens: 10, CompletionTokens: 2, CacheReadTokens: 30, CacheCreationTokens: 50}})
	resp, err := m.Chat(context.Background(), req())
	if err != nil {
		t.Fatal(err)
	}
	if u := resp.Usage; u.PromptTokens != 90 || u.CacheCreationTokens != 50 || u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens != 30 {
		t.Fatalf("usage %+v", u)
	}
	ch := resp.Choices[0]
	var th struct{ Type, Thinking, Signature string }
	if len(ch.Message.Thinking) != 1 || json.Unmarshal(ch.Message.Thinking[0], &th) != nil || th.Type != "thinking" || th.Thinking != "hmm" || th.Signature == "" {
		t.Fatalf("thinking %s", ch.Message.Thinking)
	}
	if ch.FinishReason != "stop" || ch.StopSequence != "END" {
		t.Fatalf("finish %q stop sequence %q", ch.FinishReason, ch.StopSequence)
	}
	if b, _ := json.Marshal(resp); strings.Contains(string(b), "hmm") || strings.Contains(string(b), "END") {
		t.Fatalf("fields on the OpenAI wire: %s", b)
	}

	f.Enqueue(fake.Reply{Text: "ok", Reasoning: "hmm", Finish: "stop_sequence"})
	s, err := m.ChatStream(context.Background(), req())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var last *engine.ChatChunk
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Choices) > 0 && c.Choices[0].FinishReason != nil {
			last = c
		}
	}
	if last == nil || last.Choices[0].StopSequence != "END" || len(last.Choices[0].Delta.Thinking) != 1 {
		t.Fatalf("last chunk %+v", last)
	}
}
