package engine_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// countingChat answers "answer N" (N counts its calls), or with a tool
// call when toolCall is set, or fails when fail is set.
type countingChat struct {
	calls    atomic.Int64
	toolCall bool
	fail     bool
}

func (m *countingChat) answer() (string, error) {
	n := m.calls.Add(1)
	if m.fail {
		return "", engine.Errorf(engine.CodeUpstream, "upstream failed")
	}
	return fmt.Sprintf("answer %d", n), nil
}

func (m *countingChat) Chat(_ context.Context, _ *engine.ChatRequest) (*engine.ChatResponse, error) {
	text, err := m.answer()
	if err != nil {
		return nil, err
	}
	ch := engine.Choice{Message: engine.ResponseMessage{Role: "assistant", Content: &text}, FinishReason: "stop"}
	if m.toolCall {
		ch.Message.ToolCalls = []engine.ToolCall{{ID: "c1", Type: "function", Function: engine.FunctionCall{Name: "f", Arguments: "{}"}}}
		ch.FinishReason = "tool_calls"
	}
	return &engine.ChatResponse{ID: "r", Object: "chat.completion", Model: "m", Choices: []engine.Choice{ch},
		Usage: engine.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}, nil
}

func (m *countingChat) ChatStream(_ context.Context, _ *engine.ChatRequest) (engine.ChatStream, error) {
	text, err := m.answer()
	if err != nil {
		return nil, err
	}
	stop := "stop"
	chunks := []*engine.ChatChunk{
		{ID: "s", Object: "chat.completion.chunk", Choices: []engine.ChunkChoice{{Delta: engine.Delta{Role: "assistant", Content: &text}}}},
		{ID: "s", Object: "chat.completion.chunk", Choices: []engine.ChunkChoice{{FinishReason: &stop, StopSequence: "END"}}},
		{ID: "s", Object: "chat.completion.chunk", Choices: []engine.ChunkChoice{}, Usage: &engine.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}},
	}
	return &cacheStream{chunks: chunks}, nil
}

type cacheStream struct {
	chunks []*engine.ChatChunk
	i      int
}

func (s *cacheStream) Recv() (*engine.ChatChunk, error) {
	if s.i >= len(s.chunks) {
		return nil, io.EOF
	}
	s.i++
	return s.chunks[s.i-1], nil
}

func (s *cacheStream) Close() error { return nil }

// cacheProviders serves one chat model for every ref.
type cacheProviders struct {
	stubProviders
	chat engine.ChatModel
}

func (p cacheProviders) ChatModel(engine.ModelRef) (engine.ChatModel, error) { return p.chat, nil }

// testClock is a settable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type cacheRig struct {
	store *blob.Store
	cache *engine.ResponseCache
	up    *countingChat
	model engine.ChatModel
	clock *testClock
}

func newCacheRig(t *testing.T, cfg engine.ResponseCacheConfig) *cacheRig {
	t.Helper()
	s := blob.New(blob.Options{InMemory: true})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return newCacheRigOn(t, s, cfg)
}

func newCacheRigOn(t testing.TB, s *blob.Store, cfg engine.ResponseCacheConfig) *cacheRig {
	t.Helper()
	r := &cacheRig{store: s, up: &countingChat{}, clock: &testClock{now: time.Unix(1_800_000_000, 0)}}
	if cfg.Clock == nil {
		cfg.Clock = r.clock.Now
	}
	r.cache = engine.NewResponseCache(s, cfg)
	p := engine.CacheProviders(cacheProviders{chat: r.up}, r.cache)
	m, err := p.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	r.model = m
	return r
}

func userReq(text string) *engine.ChatRequest {
	return &engine.ChatRequest{Model: "gpt-4o-mini", Messages: []engine.Message{{Role: "user", Content: engine.TextContent(text)}}}
}

// chat makes one non-stream call as owner with mode and returns the text
// and the cache outcome.
func (r *cacheRig) chat(t *testing.T, owner, mode string, req *engine.ChatRequest) (string, string, *engine.ChatResponse) {
	t.Helper()
	ctx, tk := engine.WithCacheTicket(context.Background(), owner, mode)
	resp, err := r.model.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return *resp.Choices[0].Message.Content, tk.Outcome(), resp
}

func TestResponseCacheExact(t *testing.T) {
	r := newCacheRig(t, engine.ResponseCacheConfig{})
	text, out, resp := r.chat(t, "alice", engine.CacheOn, userReq("hi"))
	if text != "answer 1" || out != engine.CacheMiss || resp.Usage.TotalTokens != 15 {
		t.Fatalf("first call: %q %q %+v", text, out, resp.Usage)
	}
	text, out, resp = r.chat(t, "alice", engine.CacheOn, userReq("hi"))
	if text != "answer 1" || out != engine.CacheHit || r.up.calls.Load() != 1 {
		t.Fatalf("second call: %q %q, %d upstream calls", text, out, r.up.calls.Load())
	}
	if resp.Usage != (engine.Usage{}) {
		t.Fatalf("a hit reports usage %+v, want none", resp.Usage)
	}
	// The provider key is not part of the key.
	req := userReq("hi")
	req.APIKey = "sk-other"
	if _, out, _ = r.chat(t, "alice", engine.CacheOn, req); out != engine.CacheHit {
		t.Fatalf("another provider key: %q, want hit", out)
	}
	// Another tenant never sees alice's answer.
	if text, out, _ = r.chat(t, "bob", engine.CacheOn, userReq("hi")); text != "answer 2" || out != engine.CacheMiss {
		t.Fatalf("bob: %q %q, want a miss with a fresh answer", text, out)
	}
	// A parameter that changes the answer is another entry.
	req = userReq("hi")
	max := 5
	req.MaxTokens = &max
	if _, out, _ = r.chat(t, "alice", engine.CacheOn, req); out != engine.CacheMiss {
		t.Fatalf("max_tokens set: %q, want miss", out)
	}
	// Off and no ticket call the model and report nothing.
	calls := r.up.calls.Load()
	if _, out, _ = r.chat(t, "alice", engine.CacheOff, userReq("hi")); out != "" {
		t.Fatalf("off: outcome %q", out)
	}
	if _, err := r.model.Chat(context.Background(), userReq("hi")); err != nil {
		t.Fatal(err)
	}
	if r.up.calls.Load() != calls+2 {
		t.Fatalf("off and no ticket made %d upstream calls, want 2", r.up.calls.Load()-calls)
	}
	// Refresh calls the model and replaces the entry.
	text, out, _ = r.chat(t, "alice", engine.CacheRefresh, userReq("hi"))
	if out != engine.CacheRefreshed {
		t.Fatalf("refresh: %q", out)
	}
	if again, out, _ := r.chat(t, "alice", engine.CacheOn, userReq("hi")); again != text || out != engine.CacheHit {
		t.Fatalf("after refresh: %q %q, want the refreshed %q as a hit", again, out, text)
	}
}

func TestResponseCacheNotCached(t *testing.T) {
	r := newCacheRig(t, engine.ResponseCacheConfig{})
	warm := 0.7
	req := userReq("hi")
	req.Temperature = &warm
	for i := 0; i < 2; i++ {
		if _, out, _ := r.chat(t, "alice", engine.CacheOn, req); out != engine.CacheBypass {
			t.Fatalf("temperature 0.7: %q, want bypass", out)
		}
	}
	// A temperature of 0 is cached.
	cold := 0.0
	req = userReq("hi")
	req.Temperature = &cold
	r.chat(t, "alice", engine.CacheOn, req)
	if _, out, _ := r.chat(t, "alice", engine.CacheOn, req); out != engine.CacheHit {
		t.Fatalf("temperature 0: %q, want hit", out)
	}
	// Tool results in the messages: the run called tools.
	req = userReq("hi")
	req.Messages = append(req.Messages,
		engine.Message{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Type: "function", Function: engine.FunctionCall{Name: "f", Arguments: "{}"}}}},
		engine.Message{Role: "tool", ToolCallID: "c1", Content: engine.TextContent("42")})
	for i := 0; i < 2; i++ {
		if _, out, _ := r.chat(t, "alice", engine.CacheOn, req); out != engine.CacheBypass {
			t.Fatalf("tool results: %q, want bypass", out)
		}
	}
	// An answer that calls tools is not stored.
	r.up.toolCall = true
	r.chat(t, "alice", engine.CacheOn, userReq("use a tool"))
	r.up.toolCall = false
	if _, out, _ := r.chat(t, "alice", engine.CacheOn, userReq("use a tool")); out != engine.CacheMiss {
		t.Fatalf("after a tool-call answer: %q, want miss", out)
	}
	// Errors are not stored.
	r.up.fail = true
	ctx, _ := engine.WithCacheTicket(context.Background(), "alice", engine.CacheOn)
	if _, err := r.model.Chat(ctx, userReq("fail")); err == nil {
		t.Fatal("want the upstream error")
	}
	r.up.fail = false
	if _, out, _ := r.chat(t, "alice", engine.CacheOn, userReq("fail")); out != engine.CacheMiss {
		t.Fatalf("after an error: %q, want miss", out)
	}
	n, err := r.cache.Len(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Stored: temperature 0, the second "use a tool", the second "fail".
	if n != 3 {
		t.Fatalf("%d entries stored, want 3", n)
	}
}

func TestResponseCacheAllowTemperature(t *testing.T) {
	r := newCacheRig(t, engine.ResponseCacheConfig{AllowTemperature: true})
	warm := 0.7
	req := userReq("hi")
	req.Temperature = &warm
	r.chat(t, "alice", engine.CacheOn, req)
	if _, out, _ := r.chat(t, "alice", engine.CacheOn, req); out != engine.CacheHit {
		t.Fatalf("temperature 0.7 allowed: %q, want hit", out)
	}
}

func TestResponseCacheTTL(t *testing.T) {
	r := newCacheRig(t, engine.ResponseCacheConfig{TTL: time.Minute})
	r.chat(t, "alice", engine.CacheOn, userReq("hi"))
	r.clock.Add(59 * time.Second)
	if _, out, _ := r.chat(t, "alice", engine.CacheOn, userReq("hi")); out != engine.CacheHit {
		t.Fatalf("within the TTL: %q", out)
	}
	r.clock.Add(2 * time.Second)
	if text, out, _ := r.chat(t, "alice", engine.CacheOn, userReq("hi")); out != engine.CacheMiss || text != "answer 2" {
		t.Fatalf("past the TTL: %q %q, want a miss", text, out)
	}
	r.chat(t, "alice", engine.CacheOn, userReq("other"))
	r.clock.Add(61 * time.Second)
	deleted, ran, err := r.cache.Sweep(context.Background())
	if err != nil || !ran || deleted != 2 {
		t.Fatalf("sweep: deleted %d, ran %v, err %v; want 2 deleted", deleted, ran, err)
	}
	if n, _ := r.cache.Len(context.Background()); n != 0 {
		t.Fatalf("%d entries left after the sweep", n)
	}
}

func TestResponseCacheEvictsOldest(t *testing.T) {
	r := newCacheRig(t, engine.ResponseCacheConfig{MaxEntries: 3})
	for i := 0; i < 4; i++ {
		r.chat(t, "alice", engine.CacheOn, userReq(fmt.Sprint("q", i)))
		r.clock.Add(time.Second)
	}
	n, err := r.cache.Len(context.Background())
	if err != nil || n > 3 {
		t.Fatalf("%d entries (err %v), want at most 3", n, err)
	}
	if _, out, _ := r.chat(t, "alice", engine.CacheOn, userReq("q3")); out != engine.CacheHit {
		t.Fatalf("newest entry: %q, want hit", out)
	}
	if _, out, _ := r.chat(t, "alice", engine.CacheOn, userReq("q0")); out != engine.CacheMiss {
		t.Fatalf("oldest entry: %q, want it evicted", out)
	}
}

// readAll reads a stream to its end.
func readAll(t *testing.T, st engine.ChatStream) []*engine.ChatChunk {
	t.Helper()
	var out []*engine.ChatChunk
	for {
		ch, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ch)
	}
}

func TestResponseCacheStreamReplay(t *testing.T) {
	r := newCacheRig(t, engine.ResponseCacheConfig{})
	ctx, tk := engine.WithCacheTicket(context.Background(), "alice", engine.CacheOn)
	// A stream closed before its end is not stored.
	st, err := r.model.ChatStream(ctx, userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = r.model.ChatStream(ctx, userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	live := readAll(t, st)
	if tk.Outcome() != engine.CacheMiss || r.up.calls.Load() != 2 {
		t.Fatalf("live stream: %q, %d calls", tk.Outcome(), r.up.calls.Load())
	}
	st, err = r.model.ChatStream(ctx, userReq("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if !engine.StreamReady(st) {
		t.Fatal("a replayed stream has every chunk at hand")
	}
	replay := readAll(t, st)
	if tk.Outcome() != engine.CacheHit || r.up.calls.Load() != 2 {
		t.Fatalf("replay: %q, %d calls", tk.Outcome(), r.up.calls.Load())
	}
	if len(replay) != len(live) {
		t.Fatalf("replayed %d chunks, live %d", len(replay), len(live))
	}
	if *replay[0].Choices[0].Delta.Content != "answer 2" || replay[0].Choices[0].Delta.Role != "assistant" {
		t.Fatalf("first replayed chunk %+v", replay[0].Choices[0].Delta)
	}
	if *replay[1].Choices[0].FinishReason != "stop" || replay[1].Choices[0].StopSequence != "END" {
		t.Fatalf("finish chunk %+v", replay[1].Choices[0])
	}
	if replay[2].Usage == nil || *replay[2].Usage != (engine.Usage{}) {
		t.Fatalf("replayed usage %+v, want zero", replay[2].Usage)
	}
	// A non-stream call with the same messages is its own entry.
	if _, out, _ := r.chat(t, "alice", engine.CacheOn, userReq("hi")); out != engine.CacheMiss {
		t.Fatalf("non-stream after a stream: %q, want miss", out)
	}
}

// feedCluster is a Cluster whose Publish calls every other node's
// subscribers at once, as the change feed does after a commit.
type feedCluster struct {
	engine.Local
	bus  *feedBus
	self int
}

type feedBus struct {
	mu   sync.Mutex
	subs map[int][]func(string)
}

func (c *feedCluster) Shared() bool { return true }
func (c *feedCluster) Publish(_ engine.Tx, topic, key string) error {
	c.bus.mu.Lock()
	var fns []func(string)
	for node, s := range c.bus.subs {
		if node != c.self {
			fns = append(fns, s...)
		}
	}
	c.bus.mu.Unlock()
	for _, fn := range fns {
		fn(key)
	}
	return nil
}
func (c *feedCluster) Subscribe(_ string, fn func(string)) {
	c.bus.mu.Lock()
	c.bus.subs[c.self] = append(c.bus.subs[c.self], fn)
	c.bus.mu.Unlock()
}

// TestResponseCacheClusterHotCopies: node B serves an entry node A wrote,
// keeps a hot copy, and drops it when A replaces the entry.
func TestResponseCacheClusterHotCopies(t *testing.T) {
	a := newCacheRig(t, engine.ResponseCacheConfig{})
	bus := &feedBus{subs: map[int][]func(string){}}
	a = newCacheRigOn(t, a.store, engine.ResponseCacheConfig{Cluster: &feedCluster{bus: bus, self: 1}})
	b := newCacheRigOn(t, a.store, engine.ResponseCacheConfig{Cluster: &feedCluster{bus: bus, self: 2}})
	a.chat(t, "alice", engine.CacheOn, userReq("hi"))
	if text, out, _ := b.chat(t, "alice", engine.CacheOn, userReq("hi")); out != engine.CacheHit || text != "answer 1" || b.up.calls.Load() != 0 {
		t.Fatalf("node B: %q %q, %d calls; want A's answer as a hit", text, out, b.up.calls.Load())
	}
	a.up.calls.Store(10)
	a.chat(t, "alice", engine.CacheRefresh, userReq("hi"))
	if text, out, _ := b.chat(t, "alice", engine.CacheOn, userReq("hi")); out != engine.CacheHit || text != "answer 11" {
		t.Fatalf("node B after A's refresh: %q %q, want A's new answer", text, out)
	}
}
