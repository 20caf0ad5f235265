package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine/telemetry"
)

// TraceProviders wraps a provider registry so every chat and embedding
// call made inside a traced operation is a client span following the
// OpenTelemetry GenAI conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/):
// "chat <model>" or "embeddings <model>" with gen_ai.operation.name,
// gen_ai.provider.name, gen_ai.request.model, gen_ai.response.model,
// gen_ai.response.id, gen_ai.response.finish_reasons, token usage and, for
// streams, gen_ai.response.time_to_first_chunk. The provider's retries are
// events on the span (providers/http.go); each fallback model is a span of
// its own. server/app wraps the registry only when tracing is on.
func TraceProviders(p Providers) Providers {
	if p == nil {
		return nil
	}
	return &traced{Providers: p}
}

type traced struct{ Providers }

// HasDeployments reports whether the wrapped registry has deployments.
func (tp *traced) HasDeployments() bool { return HasDeployments(tp.Providers) }

func (tp *traced) ChatModel(ref ModelRef) (ChatModel, error) {
	cm, err := tp.Providers.ChatModel(ref)
	if err != nil {
		return nil, err
	}
	return &tracedChat{next: cm, ref: ref}, nil
}

func (tp *traced) Embedder(ref ModelRef) (Embedder, error) {
	e, err := tp.Providers.Embedder(ref)
	if err != nil {
		return nil, err
	}
	return &tracedEmbedder{next: e, ref: ref}, nil
}

// GenAIProvider maps Hearth's provider names to the well-known values of
// gen_ai.provider.name; others (OpenAI-compatible hosts, local servers)
// keep their Hearth name.
func GenAIProvider(p string) string {
	switch p {
	case "google":
		return "gcp.gemini"
	case "mistral":
		return "mistral_ai"
	case "xai":
		return "x_ai"
	case "bedrock":
		return "aws.bedrock"
	}
	return p
}

func startGenAI(ctx context.Context, op string, ref ModelRef) (context.Context, *telemetry.Span) {
	if telemetry.FromContext(ctx) == nil {
		return ctx, nil
	}
	return telemetry.Start(ctx, op+" "+ref.Model, telemetry.KindClient,
		telemetry.String("gen_ai.operation.name", op),
		telemetry.String("gen_ai.provider.name", GenAIProvider(ref.Provider)),
		telemetry.String("gen_ai.request.model", ref.Model))
}

func requestAttrs(sp *telemetry.Span, req *ChatRequest, stream bool) {
	if sp == nil {
		return
	}
	sp.SetAttrs(telemetry.Bool("hearth.stream", stream))
	if req.MaxTokens != nil {
		sp.SetAttrs(telemetry.Int("gen_ai.request.max_tokens", *req.MaxTokens))
	}
	if req.Temperature != nil {
		sp.SetAttrs(telemetry.Float("gen_ai.request.temperature", *req.Temperature))
	}
}

func usageAttrs(sp *telemetry.Span, u *Usage) {
	if u == nil {
		return
	}
	sp.SetAttrs(telemetry.Int("gen_ai.usage.input_tokens", u.PromptTokens),
		telemetry.Int("gen_ai.usage.output_tokens", u.CompletionTokens))
}

type tracedChat struct {
	next ChatModel
	ref  ModelRef
}

func (c *tracedChat) Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error) {
	ctx, sp := startGenAI(ctx, "chat", c.ref)
	if sp == nil {
		return c.next.Chat(ctx, req)
	}
	defer sp.End()
	requestAttrs(sp, req, false)
	resp, err := c.next.Chat(ctx, req)
	if err != nil {
		sp.Fail(err)
		return resp, err
	}
	if resp != nil {
		reasons := make([]string, 0, len(resp.Choices))
		for _, ch := range resp.Choices {
			reasons = append(reasons, ch.FinishReason)
		}
		sp.SetAttrs(telemetry.String("gen_ai.response.model", resp.Model), telemetry.String("gen_ai.response.id", resp.ID),
			telemetry.Strings("gen_ai.response.finish_reasons", reasons))
		usageAttrs(sp, &resp.Usage)
	}
	return resp, nil
}

func (c *tracedChat) ChatStream(ctx context.Context, req *ChatRequest) (ChatStream, error) {
	ctx, sp := startGenAI(ctx, "chat", c.ref)
	if sp == nil {
		return c.next.ChatStream(ctx, req)
	}
	requestAttrs(sp, req, true)
	st, err := c.next.ChatStream(ctx, req)
	if err != nil {
		sp.Fail(err)
		sp.End()
		return nil, err
	}
	ts := &tracedStream{sp: sp, start: time.Now()}
	return &watchedStream{next: st, hooks: ts}, nil
}

// tracedStream is what a chat stream's span learns from its chunks; the
// span ends when the stream ends (see watchedStream), possibly on another
// goroutine than Recv's, so the fields are guarded by mu.
type tracedStream struct {
	sp      *telemetry.Span
	start   time.Time
	mu      sync.Mutex
	first   bool
	model   string
	id      string
	reasons []string
	usage   *Usage
}

func (s *tracedStream) observe(ch *ChatChunk) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.first {
		s.first = true
		s.sp.SetAttrs(telemetry.Float("gen_ai.response.time_to_first_chunk", time.Since(s.start).Seconds()))
	}
	if ch.Model != "" {
		s.model = ch.Model
	}
	if ch.ID != "" {
		s.id = ch.ID
	}
	for _, c := range ch.Choices {
		if c.FinishReason != nil && *c.FinishReason != "" {
			s.reasons = append(s.reasons, *c.FinishReason)
		}
	}
	if ch.Usage != nil {
		u := *ch.Usage
		s.usage = &u
	}
}

// finish ends the span; a stream closed early by the caller ends it
// without an error.
func (s *tracedStream) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sp.SetAttrs(telemetry.String("gen_ai.response.model", s.model), telemetry.String("gen_ai.response.id", s.id),
		telemetry.Strings("gen_ai.response.finish_reasons", s.reasons))
	usageAttrs(s.sp, s.usage)
	s.sp.Fail(err)
	s.sp.End()
}

type tracedEmbedder struct {
	next Embedder
	ref  ModelRef
}

func (e *tracedEmbedder) Embed(ctx context.Context, req *EmbedRequest) ([][]float32, error) {
	ctx, sp := startGenAI(ctx, "embeddings", e.ref)
	if sp == nil {
		return e.next.Embed(ctx, req)
	}
	defer sp.End()
	sp.SetAttrs(telemetry.Int("hearth.embed.inputs", len(req.Inputs)))
	v, err := e.next.Embed(ctx, req)
	sp.Fail(err)
	if err == nil && len(v) > 0 {
		sp.SetAttrs(telemetry.Int("gen_ai.embeddings.dimension.count", len(v[0])))
	}
	return v, err
}

func (e *tracedEmbedder) MaxBatch() int { return e.next.MaxBatch() }

// fallbackEvent notes on the span in ctx that a model failed and the next
// one is tried.
func fallbackEvent(ctx context.Context, from, to ModelRef, cause error) {
	if sp := telemetry.FromContext(ctx); sp != nil {
		sp.AddEvent("hearth.fallback", telemetry.String("hearth.fallback.from", from.String()),
			telemetry.String("hearth.fallback.to", to.String()), telemetry.String("error.type", errorType(cause)))
	}
}

// errorType is the error.type attribute of an error: its engine code, or
// "_OTHER".
func errorType(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return ""
	}
	return "_OTHER"
}
