// Package telemetry is Hearth's tracing: spans in a W3C trace context,
// recorded in process and handed in batches to an Exporter (the OTLP/HTTP
// adapter in providers/otlp). It depends on the standard library only, so
// every engine package and the HTTP layer can open spans.
//
// A span is opened from the span already in a context (Start) or, at an
// entry point (an HTTP request, an ingestion job), from a Tracer. When
// tracing is off there is no Tracer, no span is ever in a context, Start
// returns a nil *Span and every method of a nil *Span does nothing: the
// hooks cost one context lookup and allocate nothing.
//
// Attribute names follow the OpenTelemetry semantic conventions: HTTP
// (https://opentelemetry.io/docs/specs/semconv/http/http-spans/) and GenAI
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/,
// v1.41: gen_ai.provider.name rather than the older gen_ai.system).
package telemetry

import (
	"context"
	"sync"
	"time"
)

// Kind is a span's kind, with the values of OTLP's Span.SpanKind.
type Kind int8

// Span kinds.
const (
	KindInternal Kind = 1
	KindServer   Kind = 2
	KindClient   Kind = 3
)

// Event is a timestamped annotation of a span (a retry, a fallback).
type Event struct {
	Name  string
	Time  time.Time
	Attrs []Attr
}

// SpanData is a finished span as the exporter receives it.
type SpanData struct {
	TraceID  TraceID
	SpanID   SpanID
	ParentID SpanID
	Name     string
	Kind     Kind
	Start    time.Time
	End      time.Time
	Attrs    []Attr
	Events   []Event
	// Links are spans of other traces this one follows from (an
	// ingestion job's link to the upload request that queued it).
	Links []Remote
	// Failed marks the span's status as error; Message says why.
	Failed  bool
	Message string
}

// Span is an operation being traced. A nil *Span is valid and records
// nothing, which is what every hook gets when tracing is off.
type Span struct {
	t    *Tracer
	mu   sync.Mutex
	data SpanData
	done bool
}

type spanKey struct{}

// FromContext returns the span in ctx, or nil.
func FromContext(ctx context.Context) *Span {
	s, _ := ctx.Value(spanKey{}).(*Span)
	return s
}

// ContextWith returns ctx carrying s; a nil s returns ctx unchanged.
func ContextWith(ctx context.Context, s *Span) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, spanKey{}, s)
}

// Start opens a child of the span in ctx and returns a context carrying
// it. Without a span in ctx (tracing off, or outside any traced
// operation) it returns ctx and a nil *Span, allocating nothing.
func Start(ctx context.Context, name string, kind Kind, attrs ...Attr) (context.Context, *Span) {
	parent := FromContext(ctx)
	if parent == nil {
		return ctx, nil
	}
	s := parent.t.newSpan(name, kind, parent.data.TraceID, parent.data.SpanID, attrs)
	return context.WithValue(ctx, spanKey{}, s), s
}

// SetAttrs sets attributes, replacing earlier values of the same keys.
func (s *Span) SetAttrs(attrs ...Attr) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	for _, a := range attrs {
		s.data.Attrs = setAttr(s.data.Attrs, a)
	}
}

func setAttr(list []Attr, a Attr) []Attr {
	for i := range list {
		if list[i].Key == a.Key {
			list[i] = a
			return list
		}
	}
	return append(list, a)
}

// AddEvent records an event at the current time.
func (s *Span) AddEvent(name string, attrs ...Attr) {
	if s == nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || len(s.data.Events) >= maxEvents {
		return
	}
	s.data.Events = append(s.data.Events, Event{Name: name, Time: now, Attrs: append([]Attr(nil), attrs...)})
}

// AddLink links the span to a span of another trace (an OTLP span link,
// https://opentelemetry.io/docs/concepts/signals/traces/#span-links): the
// operation it follows from without being its child.
func (s *Span) AddLink(r Remote) {
	if s == nil || r.TraceID.IsZero() || r.SpanID.IsZero() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || len(s.data.Links) >= maxEvents {
		return
	}
	s.data.Links = append(s.data.Links, r)
}

// maxEvents bounds the events of one span (a long agent run retrying).
const maxEvents = 64

// Fail marks the span failed with err's message (cut to 512 bytes); a nil
// err does nothing. Messages are the ones Hearth would answer with, which
// never carry keys (providers redact them at the boundary).
func (s *Span) Fail(err error) {
	if s == nil || err == nil {
		return
	}
	msg := err.Error()
	if len(msg) > 512 {
		msg = msg[:512]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data.Failed, s.data.Message = true, msg
}

// End finishes the span and queues it for export; later calls do nothing.
func (s *Span) End() {
	if s == nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return
	}
	s.done = true
	s.data.End = now
	d := s.data
	s.mu.Unlock()
	s.t.enqueue(&d)
}

// TraceID is the span's trace id (zero for a nil span).
func (s *Span) TraceID() TraceID {
	if s == nil {
		return TraceID{}
	}
	return s.data.TraceID
}

// SpanID is the span's id (zero for a nil span).
func (s *Span) SpanID() SpanID {
	if s == nil {
		return SpanID{}
	}
	return s.data.SpanID
}
