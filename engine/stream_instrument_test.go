package engine

import (
	"context"
	"strings"
	"testing"
)

// streamOnlyChat is a ChatModel whose streams are one preallocated
// stream of chunks, so that what a wrapper allocates is all that is
// counted.
type streamOnlyChat struct {
	ChatModel
	chunks []*ChatChunk
	st     sliceStream
}

func (m *streamOnlyChat) ChatStream(context.Context, *ChatRequest) (ChatStream, error) {
	m.st = sliceStream{chunks: m.chunks}
	return &m.st, nil
}

// costProviders prices every token at a micro-dollar.
type costProviders struct{ chatOnlyProviders }

func (costProviders) Cost(_ ModelRef, prompt, completion int) (float64, bool) {
	return float64(prompt+completion) / 1e6, true
}

// usageMetrics sums the usage reported to it.
type usageMetrics struct {
	NopMetrics
	calls, prompt, completion int
}

func (m *usageMetrics) ModelUsage(_, _ string, prompt, completion int, _ float64) {
	m.calls, m.prompt, m.completion = m.calls+1, m.prompt+prompt, m.completion+completion
}

// wrappedStream is a metrics-wrapped chat model whose stream is
// model's three chunks (text, then two usages), and the function that
// reads one stream to its end.
func wrappedStream(tb testing.TB) (*streamOnlyChat, *usageMetrics, func()) {
	text := "hi"
	model := &streamOnlyChat{chunks: []*ChatChunk{
		{Choices: []ChunkChoice{{Delta: Delta{Content: &text}}}},
		{Usage: &Usage{PromptTokens: 1, CompletionTokens: 1}},
		{Usage: &Usage{PromptTokens: 7, CompletionTokens: 3}},
	}}
	m := &usageMetrics{}
	cm, err := InstrumentProviders(costProviders{chatOnlyProviders{model: model}}, m).ChatModel(ModelRef{Provider: "openai", Model: "m"})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, req := context.Background(), &ChatRequest{}
	return model, m, func() {
		st, err := cm.ChatStream(ctx, req)
		if err != nil {
			tb.Fatal(err)
		}
		for {
			if _, err := st.Recv(); err != nil {
				break
			}
		}
		st.Close()
	}
}

// TestInstrumentedChatStreamUsage: the metrics wrapper of a stream closes
// the upstream stream and reports the stream's last usage once.
func TestInstrumentedChatStreamUsage(t *testing.T) {
	model, m, run := wrappedStream(t)
	run()
	if !model.st.closed {
		t.Fatal("Close did not reach the upstream stream")
	}
	if m.calls != 1 || m.prompt != 7 || m.completion != 3 {
		t.Fatalf("usage reported %d times, %d+%d tokens; want once, 7+3", m.calls, m.prompt, m.completion)
	}
}

// BenchmarkInstrumentedChatStreamAllocs: the metrics wrapper of a stream
// (its usage record and the watched stream its caller receives) is one
// allocation a stream on Go 1.26, not five (two structs, two method values
// and a copy of the usage).
func BenchmarkInstrumentedChatStreamAllocs(b *testing.B) {
	_, _, run := wrappedStream(b)
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}

// accumulate collects 24 text deltas after the role delta into a.
func accumulate(a *accumulator, words []string) {
	empty := ""
	*a = accumulator{}
	a.add(&ChunkChoice{Delta: Delta{Role: "assistant", Content: &empty}})
	for i := range words {
		a.add(&ChunkChoice{Delta: Delta{Content: &words[i]}})
	}
}

// TestAccumulatorText: a run stream's text is its deltas in order.
func TestAccumulatorText(t *testing.T) {
	words := make([]string, 24)
	for i := range words {
		words[i] = "word "
	}
	var a accumulator
	accumulate(&a, words)
	if got, want := a.text.String(), strings.Repeat("word ", 24); got != want {
		t.Fatalf("text %q, want %q", got, want)
	}
}

// BenchmarkAccumulatorTextAllocs: a run stream collects a short answer's
// text in one allocation (AnswerTextSize reserved at the first text),
// however many deltas it comes in (Go 1.26).
func BenchmarkAccumulatorTextAllocs(b *testing.B) {
	words := make([]string, 24)
	for i := range words {
		words[i] = "word "
	}
	var a accumulator
	b.ReportAllocs()
	for b.Loop() {
		accumulate(&a, words)
	}
}
