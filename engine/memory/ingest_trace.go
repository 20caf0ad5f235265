package memory

import (
	"context"
	"errors"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/telemetry"
)

// tracedIngest runs an ingestion job inside an "ingest <document>" root
// span when tracing is on (Config.Tracer): its children are "parse"
// (TraceParse), "chunk", one "embeddings <model>" client span per batch
// (engine.TraceProviders) and "index" (TraceIndex). The job runs on
// whichever node claimed it, so its trace is that node's; it starts a
// trace of its own rather than joining the upload request's, which may
// have ended long before, and links to that request's span (the job
// record's Trace, see withTrace) (docs/operations.md#opentelemetry).
func (s *Service) tracedIngest(ctx context.Context, j *Job) error {
	if s.cfg.Tracer == nil {
		return s.runIngest(ctx, j)
	}
	ctx, sp := s.cfg.Tracer.Root(ctx, "ingest "+j.Document, telemetry.KindInternal, nil,
		telemetry.String("hearth.memory.name", j.Memory), telemetry.String("hearth.document.name", j.Document),
		telemetry.String("hearth.job.id", j.ID), telemetry.Int("hearth.job.attempt", j.Attempts))
	defer sp.End()
	if r, ok := telemetry.ParseTraceparent(j.Trace); ok {
		sp.AddLink(r)
	}
	err := s.runIngest(ctx, j)
	sp.Fail(err)
	return err
}

// chunk is chunkDocument inside a "chunk" span.
func (s *Service) chunk(ctx context.Context, m *Memory, doc *Document, j *Job, text string, overlap int) ([]string, []chunkRecord) {
	_, sp := telemetry.Start(ctx, "chunk", telemetry.KindInternal)
	texts, recs := chunkDocument(m, doc, j, text, overlap)
	if sp != nil {
		sp.SetAttrs(telemetry.Int("hearth.chunk.size", m.ChunkSize), telemetry.Int("hearth.chunk.overlap", overlap),
			telemetry.Int("hearth.chunks", len(texts)))
		sp.End()
	}
	return texts, recs
}

// failedDocument marks the traced job's span failed with the document's
// status message.
func failedDocument(ctx context.Context, msg string) {
	telemetry.FromContext(ctx).Fail(errors.New(msg))
}

// TraceParse wraps a parser so each call inside a traced operation (an
// ingestion job, the /v1/parser primitive) is a "parse" span with the
// content type and the length of the text.
func TraceParse(parse func(ctx context.Context, contentType, name string, data []byte) (string, error)) func(ctx context.Context, contentType, name string, data []byte) (string, error) {
	return func(ctx context.Context, contentType, name string, data []byte) (string, error) {
		ctx, sp := telemetry.Start(ctx, "parse", telemetry.KindInternal)
		if sp == nil {
			return callParse(ctx, parse, contentType, name, data)
		}
		defer sp.End()
		sp.SetAttrs(telemetry.String("hearth.document.content_type", contentType), telemetry.Int("hearth.document.bytes", len(data)))
		text, err := callParse(ctx, parse, contentType, name, data)
		sp.Fail(err)
		sp.SetAttrs(telemetry.Int("hearth.document.text_chars", len(text)))
		return text, err
	}
}

func callParse(ctx context.Context, parse func(ctx context.Context, contentType, name string, data []byte) (string, error), contentType, name string, data []byte) (string, error) {
	if parse == nil {
		return safeParse(contentType, name, data)
	}
	return parse(ctx, contentType, name, data)
}

// TraceIndex wraps a search index so each Add inside a traced operation
// is an "index" span with the number of chunks (and of vectors) added.
func TraceIndex(idx engine.SearchIndex) engine.SearchIndex { return tracedIndex{idx} }

type tracedIndex struct{ engine.SearchIndex }

func (t tracedIndex) Add(ctx context.Context, memoryID string, chunks []engine.IndexedChunk) error {
	ctx, sp := telemetry.Start(ctx, "index", telemetry.KindInternal)
	if sp == nil {
		return t.SearchIndex.Add(ctx, memoryID, chunks)
	}
	defer sp.End()
	vectors := 0
	for i := range chunks {
		if chunks[i].Vector != nil {
			vectors++
		}
	}
	sp.SetAttrs(telemetry.Int("hearth.index.chunks", len(chunks)), telemetry.Int("hearth.index.vectors", vectors))
	err := t.SearchIndex.Add(ctx, memoryID, chunks)
	sp.Fail(err)
	return err
}

// withTrace records in j the span of the request queuing it (nothing when
// the request is not traced), so the job's span can link to it from any
// node: the trace context travels in the shared job record.
func withTrace(ctx context.Context, j *Job) *Job {
	j.Trace = telemetry.FromContext(ctx).Traceparent()
	return j
}
