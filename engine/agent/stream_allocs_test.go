package agent

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestAgentStreamAllocationsPerEvent: forwarding one upstream text event
// costs the agent stream one allocation (the client's chunk with its
// choice; the queue's array is reused), and the chunks are what the client
// saw before: one id, the text in order, a finish reason last.
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
	if perEvent > 1 {
		t.Fatalf("an event costs %.1f allocations, want 1 (3 before)", perEvent)
	}
}
