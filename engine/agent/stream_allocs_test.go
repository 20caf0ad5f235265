package agent

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestAgentStreamAllocationsPerEvent: forwarding one upstream text event
// costs the agent stream an eighth of an allocation (the client's chunks
// with their choice come a block of eight at a time; the queue's array is
// reused), and the chunks are what the client saw before: one id, the text
// in order, a finish reason last, each chunk its own (the first is intact
// at the end).
func TestAgentStreamAllocationsPerEvent(t *testing.T) {
	const events = 200
	words := make([]string, events)
	upstream := make([]*engine.ChatChunk, events)
	for i := range upstream {
		words[i] = "w "
		upstream[i] = &engine.ChatChunk{ID: "chatcmpl-1", Model: "m", Choices: []engine.ChunkChoice{{Delta: engine.Delta{Content: &words[i]}}}}
	}
	run := &agentRun{ref: engine.ModelRef{Provider: "p", Model: "m"}, chat: &engine.ChatRequest{}}
	s := newAgentStream(context.Background(), 10, &scriptModel{}, run, &toolbox{}, &chunks{list: upstream})
	defer s.Close(nil)
	first, err := s.Recv() // the role chunk
	if err != nil || first.Choices[0].Delta.Role != "assistant" {
		t.Fatalf("first chunk %+v, %v", first, err)
	}
	perEvent := testing.AllocsPerRun(events-2, func() {
		c, err := s.Recv()
		if err != nil || c.ID != "chatcmpl-1" || len(c.Choices) != 1 || *c.Choices[0].Delta.Content != "w " {
			t.Fatalf("chunk %+v, %v", c, err)
		}
	})
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
	if perEvent > 0.3 {
		t.Fatalf("an event costs %.2f allocations, want at most 0.3 (1 before, 3 before that)", perEvent)
	}
}
