package telemetry

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Exporter sends finished spans somewhere (providers/otlp posts them to
// an OTLP/HTTP collector). Export is called from one goroutine at a time;
// it returns once the batch is delivered or given up on.
type Exporter interface {
	Export(ctx context.Context, resource []Attr, spans []*SpanData) error
}

// Config configures a Tracer.
type Config struct {
	// Exporter receives the batches (required).
	Exporter Exporter
	// Resource describes this process (service.name, service.version,
	// service.instance.id).
	Resource []Attr
	// QueueSize bounds the finished spans waiting for export (default
	// 2048); spans finished while it is full are dropped and counted.
	QueueSize int
	// BatchSize is the most spans one export carries (default 512).
	BatchSize int
	// Interval is the longest a finished span waits (default 2 s).
	Interval time.Duration
	// ExportTimeout bounds one export, retries included (default 30 s).
	ExportTimeout time.Duration
	Logger        *slog.Logger
}

// Tracer opens root spans and exports finished spans in batches from a
// bounded queue. It lives in this process's memory: with several Hearth
// nodes on one database each node exports the spans of the requests and
// jobs it serves itself, under its own service.instance.id, and the
// collector joins them by trace id; nothing is shared through the store.
type Tracer struct {
	cfg      Config
	queue    chan *SpanData
	flush    chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	dropped  atomic.Int64
	failed   atomic.Int64
	exported atomic.Int64
	once     sync.Once
	open     atomic.Bool
}

// New returns a Tracer; Open starts its export loop.
func New(cfg Config) *Tracer {
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 2048
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 512
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 2 * time.Second
	}
	if cfg.ExportTimeout <= 0 {
		cfg.ExportTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Tracer{cfg: cfg, queue: make(chan *SpanData, cfg.QueueSize), flush: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Open starts the export loop.
func (t *Tracer) Open() {
	if t.open.CompareAndSwap(false, true) {
		go t.loop()
	}
}

// Root opens the first span of this process in a trace: a child of the
// caller's span when remote is set (an incoming traceparent), else of a
// new trace. A nil Tracer (tracing off) returns ctx and a nil *Span.
func (t *Tracer) Root(ctx context.Context, name string, kind Kind, remote *Remote, attrs ...Attr) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	var trace TraceID
	var parent SpanID
	if remote != nil {
		trace, parent = remote.TraceID, remote.SpanID
	}
	s := t.newSpan(name, kind, trace, parent, attrs)
	return context.WithValue(ctx, spanKey{}, s), s
}

func (t *Tracer) newSpan(name string, kind Kind, trace TraceID, parent SpanID, attrs []Attr) *Span {
	s := &Span{t: t, data: SpanData{TraceID: trace, ParentID: parent, Name: name, Kind: kind, Start: time.Now()}}
	if trace.IsZero() {
		newIDs(&s.data.TraceID, &s.data.SpanID)
	} else {
		newIDs(nil, &s.data.SpanID)
	}
	if len(attrs) > 0 {
		s.data.Attrs = append(make([]Attr, 0, len(attrs)+4), attrs...)
	}
	return s
}

// enqueue hands a finished span to the export loop, dropping it when the
// queue is full so a slow collector never slows a request.
func (t *Tracer) enqueue(d *SpanData) {
	select {
	case t.queue <- d:
	default:
		if t.dropped.Add(1) == 1 {
			t.cfg.Logger.Warn("otel: export queue full, dropping spans", "queue", t.cfg.QueueSize)
		}
	}
}

// Dropped is the number of spans dropped because the queue was full.
func (t *Tracer) Dropped() int64 { return t.dropped.Load() }

// Failed is the number of spans whose export failed after retries.
func (t *Tracer) Failed() int64 { return t.failed.Load() }

// Exported is the number of spans the exporter delivered.
func (t *Tracer) Exported() int64 { return t.exported.Load() }

// Flush exports every span finished so far and waits for it (or ctx).
func (t *Tracer) Flush(ctx context.Context) {
	if !t.open.Load() {
		return
	}
	ack := make(chan struct{})
	select {
	case t.flush <- ack:
	case <-t.done:
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-ack:
	case <-ctx.Done():
	}
}

// Close exports what is queued (bounded by ctx) and stops the loop.
func (t *Tracer) Close(ctx context.Context) error {
	if !t.open.Load() {
		return nil
	}
	t.Flush(ctx)
	t.once.Do(func() { close(t.stop) })
	select {
	case <-t.done:
	case <-ctx.Done():
	}
	if n := t.dropped.Load(); n > 0 {
		t.cfg.Logger.Warn("otel: spans dropped (export queue full)", "dropped", n)
	}
	return nil
}

func (t *Tracer) loop() {
	defer close(t.done)
	tick := time.NewTicker(t.cfg.Interval)
	defer tick.Stop()
	batch := make([]*SpanData, 0, t.cfg.BatchSize)
	send := func() {
		if len(batch) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), t.cfg.ExportTimeout)
		err := t.cfg.Exporter.Export(ctx, t.cfg.Resource, batch)
		cancel()
		if err != nil {
			t.failed.Add(int64(len(batch)))
			t.cfg.Logger.Warn("otel: export failed", "spans", len(batch), "err", err)
		} else {
			t.exported.Add(int64(len(batch)))
		}
		batch = make([]*SpanData, 0, t.cfg.BatchSize)
	}
	drain := func() {
		for {
			select {
			case d := <-t.queue:
				if batch = append(batch, d); len(batch) >= t.cfg.BatchSize {
					send()
				}
			default:
				send()
				return
			}
		}
	}
	for {
		select {
		case d := <-t.queue:
			if batch = append(batch, d); len(batch) >= t.cfg.BatchSize {
				send()
			}
		case <-tick.C:
			send()
		case ack := <-t.flush:
			drain()
			close(ack)
		case <-t.stop:
			drain()
			return
		}
	}
}
