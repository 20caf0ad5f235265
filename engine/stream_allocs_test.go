package engine

import (
	"context"
	"strings"
	"testing"
)

// streamOnlyChat is a ChatModel whose streams are one preallocated
// stream, so that what a wrapper allocates is all that is counted.
type streamOnlyChat struct {
	ChatModel
	st sliceStream
}

func (m *streamOnlyChat) ChatStream(context.Context, *ChatRequest) (ChatStream, error) {
	m.st.closed = false
	return &m.st, nil
}

// TestInstrumentedChatStreamAllocations: the metrics wrapper of a stream
// (its usage record and the watched stream its caller receives) is one
// allocation a stream, not four (two structs and two method values).
func TestInstrumentedChatStreamAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector moves values to the heap")
	}
	model := &streamOnlyChat{}
	cm, err := InstrumentProviders(chatOnlyProviders{model: model}, NopMetrics{}).ChatModel(ModelRef{Provider: "openai", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, req := context.Background(), &ChatRequest{}
	n := testing.AllocsPerRun(100, func() {
		st, err := cm.ChatStream(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	})
	if !model.st.closed {
		t.Fatal("Close did not reach the upstream stream")
	}
	if n > 1 {
		t.Fatalf("an instrumented stream allocates %.0f times, want 1", n)
	}
}

// TestAccumulatorTextAllocations: a run stream collects a short answer's
// text in one allocation (AnswerTextSize reserved at the first text),
// however many deltas it comes in, and the text is the deltas in order.
func TestAccumulatorTextAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector moves values to the heap")
	}
	words := make([]string, 24)
	for i := range words {
		words[i] = "word "
	}
	empty := ""
	var a accumulator
	n := testing.AllocsPerRun(50, func() {
		a = accumulator{}
		a.add(&ChunkChoice{Delta: Delta{Role: "assistant", Content: &empty}})
		for i := range words {
			a.add(&ChunkChoice{Delta: Delta{Content: &words[i]}})
		}
	})
	if got, want := a.text.String(), strings.Repeat("word ", 24); got != want {
		t.Fatalf("text %q, want %q", got, want)
	}
	if n > 1 {
		t.Fatalf("collecting 24 deltas allocates %.0f times, want 1", n)
	}
}
