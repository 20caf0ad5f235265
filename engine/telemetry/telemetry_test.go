package telemetry

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// memExporter keeps exported batches; block, when set, holds every export
// until closed.
type memExporter struct {
	mu    sync.Mutex
	spans []*SpanData
	block chan struct{}
}

func (m *memExporter) Export(ctx context.Context, _ []Attr, spans []*SpanData) error {
	if m.block != nil {
		<-m.block
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spans = append(m.spans, spans...)
	return nil
}

func (m *memExporter) got() []*SpanData {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*SpanData(nil), m.spans...)
}

// TestOffAllocatesNothing: without a span in the context (tracing off, the
// default) the hooks Hearth's code runs allocate nothing, as
// docs/operations.md#opentelemetry promises. One of the few allocation tests:
// the hooks are on every request's path and do nothing but return on nil
// receivers, so the zero is structural, not a measured figure; it runs without
// the race detector only (make test-norace).
func TestOffAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector moves values to the heap; make test-norace runs this test")
	}
	ctx := context.Background()
	var tr *Tracer
	model := "gpt-4o-mini"
	n := testing.AllocsPerRun(1000, func() {
		c, root := tr.Root(ctx, "POST /v1/pipes/run", KindServer, nil, String("http.request.method", "POST"))
		c2, sp := Start(c, "chat "+"x", KindClient, String("gen_ai.request.model", model), Int("n", 3))
		sp.SetAttrs(Int("gen_ai.usage.input_tokens", 12), Float("ttfc", 0.5), Bool("stream", true))
		sp.AddEvent("retry", Int("attempt", 2))
		FromContext(c2).AddEvent("fallback", String("to", model))
		sp.Fail(errors.ErrUnsupported)
		sp.End()
		root.End()
		_ = root.TraceID()
	})
	if n != 0 {
		t.Fatalf("tracing off allocates %v times per request", n)
	}
}

func BenchmarkHooksOff(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c, sp := Start(ctx, "chat", KindClient, String("gen_ai.request.model", "m"))
		sp.SetAttrs(Int("gen_ai.usage.input_tokens", 12))
		FromContext(c).End()
	}
}

func TestSpanTreeExported(t *testing.T) {
	exp := &memExporter{}
	tr := New(Config{Exporter: exp, Interval: time.Hour})
	tr.Open()
	remote, ok := ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if !ok {
		t.Fatal("valid traceparent refused")
	}
	ctx, root := tr.Root(context.Background(), "GET /x", KindServer, &remote, String("a", "1"))
	_, child := Start(ctx, "chat m", KindClient)
	child.SetAttrs(Int("n", 1), Int("n", 2))
	child.AddEvent("retry", Int("attempt", 1))
	child.Fail(errors.New("boom"))
	child.End()
	child.End()
	root.End()
	tr.Flush(context.Background())
	got := exp.got()
	if len(got) != 2 || tr.Exported() != 2 || tr.Dropped() != 0 || tr.Failed() != 0 {
		t.Fatalf("exported %d spans (counted %d, dropped %d, failed %d), want 2 (a span ended twice is exported once)",
			len(got), tr.Exported(), tr.Dropped(), tr.Failed())
	}
	c, r := got[0], got[1]
	if r.TraceID != remote.TraceID || r.ParentID != remote.SpanID || r.Kind != KindServer {
		t.Errorf("root %+v: want trace and parent of the traceparent", r)
	}
	if c.TraceID != r.TraceID || c.ParentID != r.SpanID || c.SpanID == r.SpanID {
		t.Errorf("child %+v is not a child of root %+v", c, r)
	}
	if len(c.Attrs) != 1 || c.Attrs[0].Int != 2 || !c.Failed || c.Message != "boom" || len(c.Events) != 1 {
		t.Errorf("child recorded %+v", c)
	}
	if root.Traceparent() != "00-4bf92f3577b34da6a3ce929d0e0e4736-"+r.SpanID.String()+"-01" {
		t.Errorf("traceparent %s", root.Traceparent())
	}
	if err := tr.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNewTraceWithoutRemote(t *testing.T) {
	exp := &memExporter{}
	tr := New(Config{Exporter: exp})
	_, a := tr.Root(context.Background(), "a", KindServer, nil)
	_, b := tr.Root(context.Background(), "b", KindServer, nil)
	if a.TraceID().IsZero() || a.TraceID() == b.TraceID() || !a.data.ParentID.IsZero() {
		t.Fatalf("roots %v %v: want two new, distinct traces without parent", a.TraceID(), b.TraceID())
	}
}

// TestQueueFullDrops: a stuck collector never blocks End; spans past the
// queue are dropped and counted, and the queued ones are exported once the
// collector answers.
func TestQueueFullDrops(t *testing.T) {
	exp := &memExporter{block: make(chan struct{})}
	tr := New(Config{Exporter: exp, QueueSize: 4, BatchSize: 1, Interval: time.Hour})
	tr.Open()
	done := make(chan struct{})
	go func() {
		for range 20 {
			_, s := tr.Root(context.Background(), "s", KindInternal, nil)
			s.End()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("End blocked on a stuck exporter")
	}
	if d := tr.Dropped(); d < 20-4-2 {
		t.Fatalf("dropped %d, want at least 14 (queue 4, one batch in export)", d)
	}
	close(exp.block)
	tr.Close(context.Background())
	if got := int64(len(exp.got())) + tr.Dropped(); got != 20 {
		t.Fatalf("exported+dropped = %d, want 20", got)
	}
}

func TestParseTraceparent(t *testing.T) {
	for h, ok := range map[string]bool{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":       true,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00":       true,
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": true,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": false,
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":       false,
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01":       false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01":       false,
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01":       false,
		"00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01":       false,
		"":        false,
		"garbage": false,
	} {
		if _, got := ParseTraceparent(h); got != ok {
			t.Errorf("ParseTraceparent(%q) ok = %v, want %v", h, got, ok)
		}
	}
}
