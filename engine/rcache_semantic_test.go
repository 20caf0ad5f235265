package engine_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
)

// vecEmbedder embeds the texts of vecs with the vectors given, any other
// text as a vector of its own, and fails while down is set.
type vecEmbedder struct {
	vecs  map[string][]float32
	down  atomic.Bool
	calls atomic.Int64
}

func (e *vecEmbedder) Embed(_ context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	e.calls.Add(1)
	if e.down.Load() {
		return nil, engine.Errorf(engine.CodeUpstream, "embedder down")
	}
	out := make([][]float32, len(req.Inputs))
	for i, in := range req.Inputs {
		v, ok := e.vecs[in]
		if !ok {
			v = []float32{0, 0, 1}
		}
		out[i] = append([]float32(nil), v...)
	}
	return out, nil
}

func (e *vecEmbedder) MaxBatch() int { return 16 }

// semProviders adds the test embedder to cacheProviders.
type semProviders struct {
	cacheProviders
	emb *vecEmbedder
}

func (p semProviders) Embedder(engine.ModelRef) (engine.Embedder, error) { return p.emb, nil }

const (
	qFrance    = "What is the capital of France?"
	qParaphr   = "Tell me the capital city of France"
	qNearMiss  = "What is the capital of Spain?"
	simDefault = 0.95
)

type semRig struct {
	*cacheRig
	emb *vecEmbedder
	p   engine.Providers
}

func newSemRig(t *testing.T, cfg engine.ResponseCacheConfig) *semRig {
	t.Helper()
	s := blob.New(blob.Options{InMemory: true})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return newSemRigOn(t, s, cfg, map[string][]float32{
		qFrance:   {1, 0, 0},
		qParaphr:  {0.99, 0.141, 0}, // cosine 0.990 with qFrance
		qNearMiss: {0.9, 0.436, 0},  // cosine 0.900 with qFrance
	})
}

// newSemRigOn is a semantic cache on s whose embedder knows vecs.
func newSemRigOn(tb testing.TB, s *blob.Store, cfg engine.ResponseCacheConfig, vecs map[string][]float32) *semRig {
	tb.Helper()
	emb := &vecEmbedder{vecs: vecs}
	cfg.Semantic = &engine.SemanticCacheConfig{Model: engine.ModelRef{Provider: "test", Model: "embed"}, Similarity: simDefault}
	r := &cacheRig{store: s, up: &countingChat{}, clock: &testClock{now: time.Unix(1_800_000_000, 0)}}
	cfg.Clock = r.clock.Now
	r.cache = engine.NewResponseCache(s, cfg)
	p := engine.CacheProviders(semProviders{cacheProviders: cacheProviders{chat: r.up}, emb: emb}, r.cache)
	m, err := p.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"})
	if err != nil {
		tb.Fatal(err)
	}
	r.model = m
	return &semRig{cacheRig: r, emb: emb, p: p}
}

// semChat makes a non-stream call with model m and returns the text, the
// outcome and the match.
func semChat(t *testing.T, m engine.ChatModel, owner string, req *engine.ChatRequest) (text, outcome, match string, sim float64) {
	t.Helper()
	ctx, tk := engine.WithCacheTicket(context.Background(), owner, engine.CacheOn)
	resp, err := m.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	match, sim = tk.Match()
	return *resp.Choices[0].Message.Content, tk.Outcome(), match, sim
}

func TestResponseCacheSemanticHit(t *testing.T) {
	r := newSemRig(t, engine.ResponseCacheConfig{})
	if text, out, _, _ := semChat(t, r.model, "alice", userReq(qFrance)); text != "answer 1" || out != engine.CacheMiss {
		t.Fatalf("first call: %q %q", text, out)
	}
	text, out, match, sim := semChat(t, r.model, "alice", userReq(qParaphr))
	if text != "answer 1" || out != engine.CacheHit || match != engine.CacheMatchSemantic || r.up.calls.Load() != 1 {
		t.Fatalf("paraphrase: %q %q %q, %d upstream calls; want alice's answer as a semantic hit", text, out, match, r.up.calls.Load())
	}
	if sim < simDefault || sim > 1 {
		t.Fatalf("similarity %v, want in [%v, 1]", sim, simDefault)
	}
	// Exact lookups come first and say so.
	if _, out, match, sim = semChat(t, r.model, "alice", userReq(qFrance)); out != engine.CacheHit || match != engine.CacheMatchExact || sim != 1 {
		t.Fatalf("same question: %q %q %v, want an exact hit", out, match, sim)
	}
	// A near miss below the threshold goes upstream, and is stored for its own paraphrases.
	if text, out, match, _ = semChat(t, r.model, "alice", userReq(qNearMiss)); text != "answer 2" || out != engine.CacheMiss || match != "" {
		t.Fatalf("near miss: %q %q %q, want a fresh answer", text, out, match)
	}
	// The closest item wins: qFrance's own vector is closer to qFrance than qNearMiss's.
	if text, _, _, _ = semChat(t, r.model, "alice", userReq(qParaphr)); text != "answer 1" {
		t.Fatalf("paraphrase after the near miss: %q, want answer 1", text)
	}
	// A lower threshold lets the near miss match too.
	low := newSemRig(t, engine.ResponseCacheConfig{})
	low.cache = nil
	lc := engine.NewResponseCache(low.store, engine.ResponseCacheConfig{Clock: low.clock.Now,
		Semantic: &engine.SemanticCacheConfig{Model: engine.ModelRef{Provider: "test", Model: "embed"}, Similarity: 0.85}})
	lm, err := engine.CacheProviders(semProviders{cacheProviders: cacheProviders{chat: low.up}, emb: low.emb}, lc).ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	semChat(t, lm, "alice", userReq(qFrance))
	if text, out, _, _ := semChat(t, lm, "alice", userReq(qNearMiss)); text != "answer 1" || out != engine.CacheHit {
		t.Fatalf("near miss at threshold 0.85: %q %q, want a hit", text, out)
	}
}

func TestResponseCacheSemanticStream(t *testing.T) {
	r := newSemRig(t, engine.ResponseCacheConfig{})
	ctx, tk := engine.WithCacheTicket(context.Background(), "alice", engine.CacheOn)
	// A non-stream entry never answers a stream: the stream flag is part of the context.
	semChat(t, r.model, "alice", userReq(qFrance))
	st, err := r.model.ChatStream(ctx, userReq(qFrance))
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, st)
	if tk.Outcome() != engine.CacheMiss || r.up.calls.Load() != 2 {
		t.Fatalf("stream after a non-stream call: %q, %d calls", tk.Outcome(), r.up.calls.Load())
	}
	st, err = r.model.ChatStream(ctx, userReq(qParaphr))
	if err != nil {
		t.Fatal(err)
	}
	chunks := readAll(t, st)
	if m, _ := tk.Match(); tk.Outcome() != engine.CacheHit || m != engine.CacheMatchSemantic || r.up.calls.Load() != 2 {
		t.Fatalf("streamed paraphrase: %q %q, %d calls", tk.Outcome(), m, r.up.calls.Load())
	}
	if *chunks[0].Choices[0].Delta.Content != "answer 2" {
		t.Fatalf("replayed %q, want the stored stream's answer 2", *chunks[0].Choices[0].Delta.Content)
	}
}

func TestResponseCacheSemanticContext(t *testing.T) {
	r := newSemRig(t, engine.ResponseCacheConfig{})
	withSystem := func(sys, q string) *engine.ChatRequest {
		req := userReq(q)
		req.Messages = append([]engine.Message{{Role: "system", Content: engine.TextContent(sys)}}, req.Messages...)
		return req
	}
	semChat(t, r.model, "alice", withSystem("Be terse.", qFrance))
	if _, out, _, _ := semChat(t, r.model, "alice", withSystem("Be terse.", qParaphr)); out != engine.CacheHit {
		t.Fatalf("same system prompt: %q, want a hit", out)
	}
	cases := map[string]func() (engine.ChatModel, string, *engine.ChatRequest){
		"another system prompt": func() (engine.ChatModel, string, *engine.ChatRequest) {
			return r.model, "alice", withSystem("Be verbose.", qParaphr)
		},
		"no system prompt": func() (engine.ChatModel, string, *engine.ChatRequest) { return r.model, "alice", userReq(qParaphr) },
		"earlier messages": func() (engine.ChatModel, string, *engine.ChatRequest) {
			req := withSystem("Be terse.", qParaphr)
			req.Messages = append(req.Messages[:1], append([]engine.Message{{Role: "user", Content: engine.TextContent("hi")}, {Role: "assistant", Content: engine.TextContent("hello")}}, req.Messages[1:]...)...)
			return r.model, "alice", req
		},
		"max_tokens": func() (engine.ChatModel, string, *engine.ChatRequest) {
			req, n := withSystem("Be terse.", qParaphr), 50
			req.MaxTokens = &n
			return r.model, "alice", req
		},
		"temperature": func() (engine.ChatModel, string, *engine.ChatRequest) {
			req, z := withSystem("Be terse.", qParaphr), 0.0
			req.Temperature = &z
			return r.model, "alice", req
		},
		"response format": func() (engine.ChatModel, string, *engine.ChatRequest) {
			req := withSystem("Be terse.", qParaphr)
			req.ResponseFormat = &engine.ResponseFormat{Type: "json_object"}
			return r.model, "alice", req
		},
		"another model": func() (engine.ChatModel, string, *engine.ChatRequest) {
			m, err := r.p.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o"})
			if err != nil {
				t.Fatal(err)
			}
			return m, "alice", withSystem("Be terse.", qParaphr)
		},
		"another tenant": func() (engine.ChatModel, string, *engine.ChatRequest) {
			return r.model, "bob", withSystem("Be terse.", qParaphr)
		},
	}
	for name, mk := range cases {
		m, owner, req := mk()
		before := r.up.calls.Load()
		if text, out, _, _ := semChat(t, m, owner, req); out != engine.CacheMiss || text == "answer 1" || r.up.calls.Load() != before+1 {
			t.Errorf("%s: %q %q, want a miss answered upstream", name, text, out)
		}
	}
}

func TestResponseCacheSemanticEmbedderDown(t *testing.T) {
	r := newSemRig(t, engine.ResponseCacheConfig{})
	semChat(t, r.model, "alice", userReq(qFrance))
	r.emb.down.Store(true)
	// The paraphrase cannot be embedded: a miss, answered upstream.
	if text, out, _, _ := semChat(t, r.model, "alice", userReq(qParaphr)); text != "answer 2" || out != engine.CacheMiss {
		t.Fatalf("embedder down: %q %q, want a miss answered upstream", text, out)
	}
	if r.emb.calls.Load() != 2 {
		t.Fatalf("%d embed calls, want 2 (one per call, reused to store)", r.emb.calls.Load())
	}
	// The answer was still stored for exact lookups, which need no embedder.
	if text, out, match, _ := semChat(t, r.model, "alice", userReq(qParaphr)); text != "answer 2" || out != engine.CacheHit || match != engine.CacheMatchExact {
		t.Fatalf("exact repeat with the embedder down: %q %q %q", text, out, match)
	}
	r.emb.down.Store(false)
	if text, out, _, _ := semChat(t, r.model, "alice", userReq(qParaphr+"!")); out != engine.CacheMiss || text != "answer 3" {
		t.Fatalf("unknown text embeds far away: %q %q", text, out)
	}
}

// semItems counts the items of every semantic bucket in the store.
func semItems(t *testing.T, s *blob.Store) int {
	t.Helper()
	n := 0
	err := s.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan("rcachesem/", "", func(_ string, v []byte) error {
			var b struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(v, &b); err != nil {
				return err
			}
			n += len(b.Items)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestResponseCacheSemanticExpiry(t *testing.T) {
	r := newSemRig(t, engine.ResponseCacheConfig{TTL: time.Minute, MaxEntries: 2})
	semChat(t, r.model, "alice", userReq(qFrance))
	if n := semItems(t, r.store); n != 1 {
		t.Fatalf("%d bucket items after one answer, want 1", n)
	}
	// An expired entry never answers a paraphrase, and the sweep removes its item.
	r.clock.Add(2 * time.Minute)
	if _, out, _, _ := semChat(t, r.model, "alice", userReq(qParaphr)); out != engine.CacheMiss {
		t.Fatalf("paraphrase of an expired entry: %q", out)
	}
	if _, _, err := r.cache.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := semItems(t, r.store); n != 1 {
		t.Fatalf("%d bucket items after the sweep, want the paraphrase's 1", n)
	}
	// Eviction past the cap removes the evicted entries' items.
	semChat(t, r.model, "alice", userReq(qNearMiss))
	semChat(t, r.model, "alice", userReq("a third question"))
	n, err := r.cache.Len(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if items := semItems(t, r.store); items != n || n > 2 {
		t.Fatalf("%d bucket items for %d entries (cap 2)", items, n)
	}
	// Replacing an entry (refresh) keeps one item for it.
	ctx, _ := engine.WithCacheTicket(context.Background(), "alice", engine.CacheRefresh)
	if _, err := r.model.Chat(ctx, userReq("a third question")); err != nil {
		t.Fatal(err)
	}
	if n, err = r.cache.Len(context.Background()); err != nil {
		t.Fatal(err)
	}
	if items := semItems(t, r.store); items != n {
		t.Fatalf("%d bucket items for %d entries after a refresh", items, n)
	}
}

// TestResponseCacheSemanticSharedStore: two nodes on one store share the
// buckets: a paraphrase through one node hits the answer the other stored,
// and once a node's sweep removed the expired entry the other (whose clock
// still calls it live) no longer matches it.
func TestResponseCacheSemanticSharedStore(t *testing.T) {
	a := newSemRig(t, engine.ResponseCacheConfig{TTL: time.Minute})
	vecs := a.emb.vecs
	b := newSemRigOn(t, a.store, engine.ResponseCacheConfig{TTL: time.Minute}, vecs)
	semChat(t, a.model, "alice", userReq(qFrance))
	if text, out, match, _ := semChat(t, b.model, "alice", userReq(qParaphr)); out != engine.CacheHit || match != engine.CacheMatchSemantic || text != "answer 1" || b.up.calls.Load() != 0 {
		t.Fatalf("node b: %q %q %q, %d upstream calls; want node a's answer", text, out, match, b.up.calls.Load())
	}
	a.clock.Add(2 * time.Minute)
	if _, _, err := a.cache.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := semItems(t, a.store); n != 0 {
		t.Fatalf("%d bucket items after the sweep", n)
	}
	if _, out, _, _ := semChat(t, b.model, "alice", userReq(qParaphr)); out != engine.CacheMiss {
		t.Fatalf("node b after the sweep: %q", out)
	}
}
