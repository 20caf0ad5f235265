package providers_test

import (
	"context"
	"io"
	"sort"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// The benchmarks measure the provider layer against an in-process fake
// that answers at once, so ns/op is the overhead Hearth adds (request
// encoding, HTTP over loopback, decoding/translation) plus the fake's own
// work. allocs/op counts both sides of the loopback. p50/p99 are reported
// per request.

func benchChat(b *testing.B, provider, model string, newFake func() *fake.Server, stream bool) {
	f := newFake()
	defer f.Close()
	f.SetRecording(false)
	f.SetDefault(fake.Reply{Text: "The quick brown fox jumps over the lazy dog."})
	reg := newRegistry(b, provider, f, nil)
	m, err := reg.ChatModel(engine.ModelRef{Provider: provider, Model: model})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	req := &engine.ChatRequest{Model: model, APIKey: "k", Messages: []engine.Message{
		{Role: "system", Content: engine.TextContent("You are terse.")}, userMsg("Say something about foxes.")}}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if stream {
			s, err := m.ChatStream(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			for {
				_, err := s.Recv()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			s.Close()
		} else if _, err := m.Chat(ctx, req); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

func BenchmarkOpenAIChat(b *testing.B)   { benchChat(b, "openai", "gpt-4o-mini", fake.NewOpenAI, false) }
func BenchmarkOpenAIStream(b *testing.B) { benchChat(b, "openai", "gpt-4o-mini", fake.NewOpenAI, true) }
func BenchmarkAnthropicChat(b *testing.B) {
	benchChat(b, "anthropic", "claude-haiku-4-5", fake.NewAnthropic, false)
}
func BenchmarkAnthropicStream(b *testing.B) {
	benchChat(b, "anthropic", "claude-haiku-4-5", fake.NewAnthropic, true)
}
func BenchmarkGeminiStream(b *testing.B) {
	benchChat(b, "google", "gemini-2.5-flash-lite", fake.NewGemini, true)
}
func BenchmarkCohereStream(b *testing.B) {
	benchChat(b, "cohere", "command-a-03-2025", fake.NewCohere, true)
}

// BenchmarkEchoStream is the hearth:echo test double: no network at all.
func BenchmarkEchoStream(b *testing.B) {
	f := fake.NewOpenAI()
	defer f.Close()
	benchChat(b, "hearth", "echo", func() *fake.Server { return f }, true)
}
