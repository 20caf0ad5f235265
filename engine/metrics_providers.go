package engine

import (
	"context"
	"sync"
	"time"
)

// InstrumentProviders wraps a provider registry so every chat, embedding
// and moderation call reports its latency and outcome (Metrics.UpstreamCall)
// and every chat completion its tokens and cost (Metrics.ModelUsage). main.go
// wraps the registry once; services then use it unchanged. A nil m returns p.
func InstrumentProviders(p Providers, m Metrics) Providers {
	if m == nil || p == nil {
		return p
	}
	return &instrumented{Providers: p, m: m}
}

type instrumented struct {
	Providers
	m Metrics
}

// CostOf prices u with the wrapped providers.
func (ip *instrumented) CostOf(ref ModelRef, u *Usage) (float64, bool) {
	return costOf(ip.Providers, ref, u)
}

// HasDeployments reports whether the wrapped registry has deployments.
func (ip *instrumented) HasDeployments() bool { return HasDeployments(ip.Providers) }

func (ip *instrumented) ChatModel(ref ModelRef) (ChatModel, error) {
	cm, err := ip.Providers.ChatModel(ref)
	if err != nil {
		return nil, err
	}
	return &instrumentedChat{next: cm, ref: ref, ip: ip}, nil
}

func (ip *instrumented) Embedder(ref ModelRef) (Embedder, error) {
	e, err := ip.Providers.Embedder(ref)
	if err != nil {
		return nil, err
	}
	return &instrumentedEmbedder{next: e, provider: ref.Provider, m: ip.m}, nil
}

func (ip *instrumented) Moderator(provider string) (Moderator, error) {
	mod, err := ip.Providers.Moderator(provider)
	if err != nil {
		return nil, err
	}
	return &instrumentedModerator{next: mod, provider: provider, m: ip.m}, nil
}

// usage reports tokens and cost of one completion.
func (ip *instrumented) usage(ref ModelRef, u *Usage) {
	if u == nil || (u.PromptTokens == 0 && u.CompletionTokens == 0) {
		return
	}
	cost, _ := costOf(ip.Providers, ref, u)
	ip.m.ModelUsage(ref.Provider, ref.Model, u.PromptTokens, u.CompletionTokens, cost)
}

type instrumentedChat struct {
	next ChatModel
	ref  ModelRef
	ip   *instrumented
}

func (c *instrumentedChat) Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error) {
	start := time.Now()
	resp, err := c.next.Chat(ctx, req)
	c.ip.m.UpstreamCall(c.ref.Provider, "chat", time.Since(start), err)
	if err == nil && resp != nil {
		c.ip.usage(c.ref, &resp.Usage)
	}
	return resp, err
}

func (c *instrumentedChat) ChatStream(ctx context.Context, req *ChatRequest) (ChatStream, error) {
	start := time.Now()
	st, err := c.next.ChatStream(ctx, req)
	if err != nil {
		c.ip.m.UpstreamCall(c.ref.Provider, "chat_stream", time.Since(start), err)
		return nil, err
	}
	is := &instrumentedStream{c: c, start: start}
	is.watchedStream = watchedStream{next: st, hooks: is, closeErr: context.Canceled}
	return &is.watchedStream, nil
}

// instrumentedStream reports once, when the stream ends (see
// watchedStream): cleanly, with an error, or closed early by the caller
// (reported as canceled). The end may come on another goroutine than
// Recv's, so usage is guarded by mu. It holds the watchedStream its
// caller receives, so that a stream is one allocation.
type instrumentedStream struct {
	watchedStream
	c     *instrumentedChat
	start time.Time
	mu    sync.Mutex
	// usage is the latest usage a chunk carried, when hasUsage is set.
	usage    Usage
	hasUsage bool
}

func (s *instrumentedStream) observe(ch *ChatChunk) {
	if ch.Usage != nil {
		s.mu.Lock()
		s.usage, s.hasUsage = *ch.Usage, true
		s.mu.Unlock()
	}
}

func (s *instrumentedStream) finish(err error) {
	s.mu.Lock()
	usage, has := s.usage, s.hasUsage
	s.mu.Unlock()
	s.c.ip.m.UpstreamCall(s.c.ref.Provider, "chat_stream", time.Since(s.start), err)
	if has {
		s.c.ip.usage(s.c.ref, &usage)
	}
}

type instrumentedEmbedder struct {
	next     Embedder
	provider string
	m        Metrics
}

func (e *instrumentedEmbedder) Embed(ctx context.Context, req *EmbedRequest) ([][]float32, error) {
	start := time.Now()
	v, err := e.next.Embed(ctx, req)
	e.m.UpstreamCall(e.provider, "embed", time.Since(start), err)
	return v, err
}

func (e *instrumentedEmbedder) MaxBatch() int { return e.next.MaxBatch() }

type instrumentedModerator struct {
	next     Moderator
	provider string
	m        Metrics
}

func (mo *instrumentedModerator) Moderate(ctx context.Context, apiKey string, input []string) (*ModerationResult, error) {
	start := time.Now()
	r, err := mo.next.Moderate(ctx, apiKey, input)
	mo.m.UpstreamCall(mo.provider, "moderation", time.Since(start), err)
	return r, err
}
