package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/telemetry"
)

// endlessStream yields chunks carrying a model, an id, a finish reason
// and usage until it is closed, from any goroutine.
type endlessStream struct {
	closed atomic.Bool
	sent   atomic.Int64
}

func (s *endlessStream) Recv() (*engine.ChatChunk, error) {
	if s.closed.Load() {
		return nil, errors.New("stream closed")
	}
	n := int(s.sent.Add(1))
	stop := "length"
	return &engine.ChatChunk{ID: "c", Model: "m", Choices: []engine.ChunkChoice{{FinishReason: &stop}},
		Usage: &engine.Usage{PromptTokens: n, CompletionTokens: n}}, nil
}

func (s *endlessStream) Close() error { s.closed.Store(true); return nil }

type endlessChat struct{ scriptedChat }

func (endlessChat) ChatStream(context.Context, *engine.ChatRequest) (engine.ChatStream, error) {
	return &endlessStream{}, nil
}

type endlessProviders struct{ chatProviders }

func (endlessProviders) ChatModel(engine.ModelRef) (engine.ChatModel, error) {
	return &endlessChat{}, nil
}

type dropExporter struct{}

func (dropExporter) Export(context.Context, []telemetry.Attr, []*telemetry.SpanData) error {
	return nil
}

// TestStreamCloseWhileRecv: the ChatStream contract lets Close come at any
// time, so a caller may close a stream (the client went away) while
// another goroutine is in Recv. The metrics and tracing wrappers record
// what Recv saw when the stream ends; run with -race, this fails if that
// record is not synchronised with Recv.
func TestStreamCloseWhileRecv(t *testing.T) {
	tr := telemetry.New(telemetry.Config{Exporter: dropExporter{}})
	p := engine.TraceProviders(engine.InstrumentProviders(endlessProviders{}, &recMetrics{}))
	for i := 0; i < 20; i++ {
		ctx, root := tr.Root(context.Background(), "test", telemetry.KindServer, nil)
		cm, err := p.ChatModel(engine.ModelRef{Provider: "openai", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		st, err := cm.ChatStream(ctx, &engine.ChatRequest{})
		if err != nil {
			t.Fatal(err)
		}
		started, done := make(chan struct{}), make(chan int)
		go func() {
			n := 0
			for {
				if _, err := st.Recv(); err != nil {
					done <- n
					return
				}
				if n++; n == 3 {
					close(started)
				}
			}
		}()
		<-started
		st.Close()
		if n := <-done; n < 3 {
			t.Fatalf("received %d chunks", n)
		}
		root.End()
	}
}
