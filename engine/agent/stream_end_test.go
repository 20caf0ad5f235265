package agent

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// readyChunks is a model stream whose chunks are all at hand (as an
// upstream's events that arrived in one read): Ready while chunks remain,
// Ended after the last. ended false makes it a stream that cannot tell.
type readyChunks struct {
	chunks
	ended bool
}

func (c *readyChunks) Ready() bool { return len(c.list) > 0 }
func (c *readyChunks) Ended() bool { return c.ended && len(c.list) == 0 }

// relayWrites drives s as the server's relay does (flush before a Recv
// when s is not Ready) and returns the chunks of each write.
func relayWrites(t *testing.T, s *AgentStream) [][]*engine.ChatChunk {
	var writes [][]*engine.ChatChunk
	var pending []*engine.ChatChunk
	for {
		if len(pending) > 0 && !s.Ready() {
			writes, pending = append(writes, pending), nil
		}
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		pending = append(pending, c)
	}
	if len(pending) > 0 {
		writes = append(writes, pending)
	}
	return writes
}

// TestAgentStreamEndsInTheLastWrite: when the model stream has ended and
// the step made no tool call, the finish and usage chunks are at hand and
// leave in the same write as the last text (before, the last text was
// flushed alone, then finish and usage). A stream that cannot tell it has
// ended keeps the old grouping, and a step with a tool call still ends
// apart (ending it may run MCP tools).
func TestAgentStreamEndsInTheLastWrite(t *testing.T) {
	upstream := func() []*engine.ChatChunk {
		a, b := "Foxes ", "run."
		return []*engine.ChatChunk{chunk("c1", engine.Delta{Content: &a}, "", nil), chunk("c1", engine.Delta{Content: &b}, "", nil),
			chunk("c1", engine.Delta{}, "stop", nil), chunk("c1", engine.Delta{}, "", &engine.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5})}
	}
	stream := func(ended bool) *AgentStream {
		run := &agentRun{ref: engine.ModelRef{Provider: "p", Model: "m"}, chat: &engine.ChatRequest{}}
		return newAgentStream(context.Background(), 10, &scriptModel{}, run, &toolbox{},
			&readyChunks{chunks: chunks{list: upstream()}, ended: ended})
	}
	s := stream(true)
	writes := relayWrites(t, s)
	s.Close(nil)
	if len(writes) != 1 {
		t.Fatalf("%d writes, want 1 (the text, the finish and the usage together): %v", len(writes), describe(writes))
	}
	w := writes[0]
	if n := len(w); n != 5 || w[2].Choices[0].Delta.Content == nil || *w[2].Choices[0].Delta.Content != "run." ||
		w[3].Choices[0].FinishReason == nil || *w[3].Choices[0].FinishReason != "stop" || w[4].Usage == nil || w[4].Usage.TotalTokens != 5 {
		t.Fatalf("write %v", describe(writes))
	}
	s = stream(false)
	writes = relayWrites(t, s)
	s.Close(nil)
	if len(writes) != 2 || len(writes[1]) != 2 || writes[1][0].Choices[0].FinishReason == nil {
		t.Fatalf("a stream that cannot tell it ended: %v, want the text, then finish and usage", describe(writes))
	}
	call := chunk("c1", engine.Delta{ToolCalls: []engine.ToolCall{{ID: "call_1", Type: "function",
		Function: engine.FunctionCall{Name: "lookup", Arguments: "{}"}}}}, "tool_calls", nil)
	run := &agentRun{ref: engine.ModelRef{Provider: "p", Model: "m"}, chat: &engine.ChatRequest{}}
	s = newAgentStream(context.Background(), 10, &scriptModel{}, run, &toolbox{},
		&readyChunks{chunks: chunks{list: append(upstream()[:2], call)}, ended: true})
	writes = relayWrites(t, s)
	s.Close(nil)
	if len(writes) != 2 {
		t.Fatalf("a step with a tool call: %v, want the text, then the step's end apart", describe(writes))
	}
}

func describe(writes [][]*engine.ChatChunk) []int {
	n := make([]int, len(writes))
	for i, w := range writes {
		n[i] = len(w)
	}
	return n
}
