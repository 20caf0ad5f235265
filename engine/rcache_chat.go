package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// CacheProviders wraps a provider registry so every chat call of every
// surface (pipes, agent, OpenAI chat completions, Responses, Messages)
// goes through the response cache c. A call consults the cache only when
// its context carries a CacheTicket whose mode is on or refresh; a hit
// answers without calling the model, with zero usage (it costs nothing
// and counts no tokens or budget). Not stored: answers that call tools,
// failed calls and streams that did not end cleanly; calls with tool
// results in their messages or a temperature above 0 (unless allowed)
// neither read nor write it. In semantic mode the last user message is
// embedded with p's embedder (and server key) of the configured model.
// A nil c returns p.
func CacheProviders(p Providers, c *ResponseCache) Providers {
	if c == nil || p == nil {
		return p
	}
	return &cachedProviders{Providers: p, c: c}
}

type cachedProviders struct {
	Providers
	c *ResponseCache
}

func (cp *cachedProviders) ChatModel(ref ModelRef) (ChatModel, error) {
	m, err := cp.Providers.ChatModel(ref)
	if err != nil {
		return nil, err
	}
	return &cachedChat{next: m, ref: ref, c: cp.c, embedders: cp.Providers}, nil
}

func (cp *cachedProviders) chatModelInto(ref ModelRef, dst *instrumentedChat) (ChatModel, error) {
	ci, ok := cp.Providers.(chatModelInto)
	if !ok {
		return cp.ChatModel(ref)
	}
	m, err := ci.chatModelInto(ref, dst)
	if err != nil {
		return nil, err
	}
	return &cachedChat{next: m, ref: ref, c: cp.c, embedders: cp.Providers}, nil
}

// CostOf prices u with the wrapped providers.
func (cp *cachedProviders) CostOf(ref ModelRef, u *Usage) (float64, bool) {
	return costOf(cp.Providers, ref, u)
}

// ImageCost passes through to the wrapped providers.
func (cp *cachedProviders) ImageCost(ref ModelRef, n int) (float64, bool) {
	return imageCost(cp.Providers, ref, n)
}

// Reranker passes through to the wrapped providers.
func (cp *cachedProviders) Reranker(ref ModelRef) (Reranker, error) {
	return rerankerOf(cp.Providers, ref)
}

type cachedChat struct {
	next      ChatModel
	ref       ModelRef
	c         *ResponseCache
	embedders Providers
}

// plan says how a call uses the cache: key is "" when it does not.
func (cc *cachedChat) plan(ctx context.Context, req *ChatRequest, stream bool) (t *CacheTicket, mode, key string) {
	t = CacheTicketFrom(ctx)
	mode = t.Mode()
	if mode != CacheOn && mode != CacheRefresh {
		return nil, "", ""
	}
	if !cacheable(req, cc.c.cfg.AllowTemperature) {
		t.setOutcome(CacheBypass)
		return nil, "", ""
	}
	key, err := cacheKey(cc.ref, req, stream)
	if err != nil {
		cc.c.log.Warn("response cache: cannot hash a request", "err", err)
		return nil, "", ""
	}
	return t, mode, key
}

// hit returns the live entry of key when mode reads the cache, else the
// closest entry of q's scope in the semantic index (q may be nil), and how it matched.
func (cc *cachedChat) hit(ctx context.Context, t *CacheTicket, mode, key string, q *semQuery) (*cacheEntry, cacheMatch) {
	if mode != CacheOn {
		return nil, cacheMatch{}
	}
	e, ok, err := cc.c.lookup(ctx, t.Owner, key)
	if err != nil {
		cc.c.log.Warn("response cache: lookup failed", "err", err)
	}
	if ok {
		return e, cacheMatch{kind: CacheMatchExact, similarity: 1}
	}
	if q == nil {
		return nil, cacheMatch{}
	}
	if e, sim := cc.semanticHit(ctx, t.Owner, q); e != nil {
		return e, cacheMatch{kind: CacheMatchSemantic, similarity: sim}
	}
	return nil, cacheMatch{}
}

// store saves e under key for owner and, when q embeds, puts it in the
// semantic index; failures are logged and never fail the call.
func (cc *cachedChat) store(ctx context.Context, owner, key string, e *cacheEntry, q *semQuery) {
	var vec []float32
	if q != nil && q.ctxHash != "" {
		if vec = cc.embed(ctx, q); vec != nil {
			e.Sem = q.ctxHash
		}
	}
	if err := cc.c.save(ctx, owner, key, e, vec); err != nil {
		cc.c.log.Warn("response cache: cannot store an answer", "err", err)
	}
}

func missOutcome(mode string) string {
	if mode == CacheRefresh {
		return CacheRefreshed
	}
	return CacheMiss
}

func (cc *cachedChat) Chat(ctx context.Context, req *ChatRequest) (*ChatResponse, error) {
	t, mode, key := cc.plan(ctx, req, false)
	if key == "" {
		return cc.next.Chat(ctx, req)
	}
	q := cc.semanticQuery(req, false)
	if e, m := cc.hit(ctx, t, mode, key, q); e != nil && len(e.Response) > 0 {
		if resp, err := decodeCachedResponse(e.Response); err == nil {
			t.setHit(m)
			return resp, nil
		}
	}
	cc.hashContext(q)
	resp, err := cc.next.Chat(ctx, req)
	t.setOutcome(missOutcome(mode))
	if err != nil || resp == nil || answerCallsTools(resp) {
		return resp, err
	}
	raw, err := encodeCachedResponse(resp)
	if err != nil {
		cc.c.log.Warn("response cache: cannot store an answer", "err", err)
		return resp, nil
	}
	cc.store(context.WithoutCancel(ctx), t.Owner, key, &cacheEntry{Model: cc.ref.String(), Response: raw}, q)
	return resp, nil
}

func (cc *cachedChat) ChatStream(ctx context.Context, req *ChatRequest) (ChatStream, error) {
	t, mode, key := cc.plan(ctx, req, true)
	if key == "" {
		return cc.next.ChatStream(ctx, req)
	}
	q := cc.semanticQuery(req, true)
	if e, m := cc.hit(ctx, t, mode, key, q); e != nil && len(e.Chunks) > 0 {
		t.setHit(m)
		return &replayStream{chunks: e.Chunks}, nil
	}
	cc.hashContext(q)
	st, err := cc.next.ChatStream(ctx, req)
	t.setOutcome(missOutcome(mode))
	if err != nil {
		return nil, err
	}
	rs := &recordingStream{cc: cc, ctx: context.WithoutCancel(ctx), owner: t.Owner, key: key, q: q}
	rs.watchedStream = watchedStream{next: st, hooks: rs, closeErr: errStreamCut}
	return &rs.watchedStream, nil
}

// errStreamCut ends a recorded stream closed before its end: it is not stored.
var errStreamCut = errors.New("stream closed before its end")

// recordingStream keeps the chunks of a stream as they pass and stores
// them when the stream ends cleanly without tool calls.
type recordingStream struct {
	watchedStream
	cc         *cachedChat
	ctx        context.Context
	owner, key string
	q          *semQuery

	mu     sync.Mutex
	chunks []json.RawMessage
	size   int
	skip   bool
}

func (s *recordingStream) observe(ch *ChatChunk) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.skip {
		return
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if len(c.Delta.ToolCalls) > 0 || (c.FinishReason != nil && *c.FinishReason == "tool_calls") {
			s.skip, s.chunks = true, nil
			return
		}
	}
	raw, err := encodeCachedChunk(ch)
	if err != nil || s.size+len(raw) > cacheMaxEntryBytes {
		s.skip, s.chunks = true, nil
		return
	}
	s.chunks = append(s.chunks, raw)
	s.size += len(raw)
}

func (s *recordingStream) finish(err error) {
	s.mu.Lock()
	chunks, skip := s.chunks, s.skip
	s.chunks = nil
	s.mu.Unlock()
	if err != nil || skip || len(chunks) == 0 {
		return
	}
	s.cc.store(s.ctx, s.owner, s.key, &cacheEntry{Model: s.cc.ref.String(), Chunks: chunks}, s.q)
}

// replayStream serves a stored stream's chunks, decoded afresh, with zero usage.
type replayStream struct {
	chunks []json.RawMessage
	i      int
}

func (r *replayStream) Recv() (*ChatChunk, error) {
	if r.i >= len(r.chunks) {
		return nil, io.EOF
	}
	ch, err := decodeCachedChunk(r.chunks[r.i])
	r.i++
	return ch, err
}

func (r *replayStream) Close() error { return nil }

// Ready reports whether a chunk remains (all are at hand).
func (r *replayStream) Ready() bool { return r.i < len(r.chunks) }

// Ended reports whether every chunk was served.
func (r *replayStream) Ended() bool { return r.i >= len(r.chunks) }

var (
	_ ReadyStream = (*replayStream)(nil)
	_ EndedStream = (*replayStream)(nil)
)
