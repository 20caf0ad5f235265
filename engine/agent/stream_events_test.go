package agent

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// textEventStream is an agent stream over events upstream text events.
func textEventStream(events int) *AgentStream {
	words := make([]string, events)
	upstream := make([]*engine.ChatChunk, events)
	for i := range upstream {
		words[i] = "w "
		upstream[i] = &engine.ChatChunk{ID: "chatcmpl-1", Model: "m", Choices: []engine.ChunkChoice{{Delta: engine.Delta{Content: &words[i]}}}}
	}
	run := &agentRun{ref: engine.ModelRef{Provider: "p", Model: "m"}, chat: &engine.ChatRequest{}}
	return newAgentStream(context.Background(), 10, &scriptModel{}, run, &toolbox{}, &chunks{list: upstream})
}

// TestAgentStreamTextEvents: the chunks of a stream of text events are
// what the client saw before: one id, the text in order, a finish reason
// last, each chunk its own (the first is intact at the end).
func TestAgentStreamTextEvents(t *testing.T) {
	const events = 200
	s := textEventStream(events)
	defer s.Close(nil)
	first, err := s.Recv() // the role chunk
	if err != nil || first.Choices[0].Delta.Role != "assistant" {
		t.Fatalf("first chunk %+v, %v", first, err)
	}
	for range events - 2 {
		c, err := s.Recv()
		if err != nil || c.ID != "chatcmpl-1" || len(c.Choices) != 1 || *c.Choices[0].Delta.Content != "w " {
			t.Fatalf("chunk %+v, %v", c, err)
		}
	}
	var last *engine.ChatChunk
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		last = c
	}
	if last == nil || last.Choices[0].FinishReason == nil || *last.Choices[0].FinishReason != "stop" {
		t.Fatalf("last chunk %+v", last)
	}
	if d := first.Choices[0].Delta; d.Role != "assistant" || d.Content == nil || *d.Content != "" || first.Choices[0].FinishReason != nil {
		t.Fatalf("the role chunk changed to %+v", first.Choices[0])
	}
}

// BenchmarkAgentStreamEventAllocs: forwarding one upstream text event
// costs the agent stream an eighth of an allocation on Go 1.26 (the
// client's chunks with their choice come a block of eight at a time; the
// queue's array is reused): 1 before, 3 before that.
func BenchmarkAgentStreamEventAllocs(b *testing.B) {
	s := textEventStream(b.N + 2)
	defer s.Close(nil)
	if _, err := s.Recv(); err != nil { // the role chunk
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := s.Recv(); err != nil {
			b.Fatal(err)
		}
	}
}

// finishingStream is an agent stream about to end, with usage to report.
func finishingStream() *AgentStream {
	run := &agentRun{ref: engine.ModelRef{Provider: "p", Model: "m"}, chat: &engine.ChatRequest{}}
	s := newAgentStream(context.Background(), 10, &scriptModel{}, run, &toolbox{}, &chunks{})
	s.started, s.id = true, "chatcmpl-1"
	s.usage, s.usageSeen = engine.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}, true
	return s
}

// TestAgentStreamFinish: the end of a stream queues the finish chunk and
// the usage chunk, carrying the finish reason and the summed usage.
func TestAgentStreamFinish(t *testing.T) {
	s := finishingStream()
	for range 2 { // the second time from the reused block
		s.queue, s.head, s.finish = s.queue[:0], 0, "length"
		s.finishStream(nil)
	}
	if len(s.queue) != 2 {
		t.Fatalf("queued %d chunks, want 2", len(s.queue))
	}
	fin, use := s.queue[0], s.queue[1]
	if fr := fin.Choices[0].FinishReason; fr == nil || *fr != "length" || fin.ID != "chatcmpl-1" {
		t.Fatalf("finish chunk %+v", fin)
	}
	if use.Usage == nil || *use.Usage != s.usage || len(use.Choices) != 0 || use.Choices == nil {
		t.Fatalf("usage chunk %+v", use)
	}
}

// BenchmarkAgentStreamFinishAllocs: the end of a stream (the finish chunk
// from the block, the usage chunk with its usage) is about one allocation
// on Go 1.26, not three.
func BenchmarkAgentStreamFinishAllocs(b *testing.B) {
	s := finishingStream()
	b.ReportAllocs()
	for b.Loop() {
		s.queue, s.head, s.finish = s.queue[:0], 0, "length"
		s.finishStream(nil)
	}
}
