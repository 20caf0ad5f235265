package engine_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index"
)

// vecEmbedder embeds the texts of vecs with the vectors given, any other
// text as a vector of its own (random, of dims dimensions, seeded by the
// text, when dims is set), and fails while down is set.
type vecEmbedder struct {
	vecs  map[string][]float32
	dims  int
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
		switch {
		case !ok && e.dims > 0:
			h := fnv.New64a()
			h.Write([]byte(in))
			rng := rand.New(rand.NewSource(int64(h.Sum64())))
			v = make([]float32, e.dims)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
		case !ok:
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
	idx *index.Manager
}

// semModel is the test embedder's model.
var semModel = engine.ModelRef{Provider: "test", Model: "embed"}

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
	return newSemRigIdx(tb, s, cfg, vecs, index.Options{}, nil)
}

// openCacheIndex opens an index Manager on s for the cache (in cluster
// mode when cl is shared), closed at the end of the test.
func openCacheIndex(tb testing.TB, s *blob.Store, cl engine.Cluster, opts index.Options) *index.Manager {
	tb.Helper()
	opts.SnapshotInterval, opts.Cluster = -1, cl
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	m := index.NewManager(s, tb.TempDir(), opts)
	if err := m.Open(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}

// newSemRigIdx is newSemRigOn with index options; wrap, when not nil,
// stands between the cache and its index.
func newSemRigIdx(tb testing.TB, s *blob.Store, cfg engine.ResponseCacheConfig, vecs map[string][]float32, iopts index.Options, wrap func(engine.SemanticIndex) engine.SemanticIndex) *semRig {
	tb.Helper()
	emb := &vecEmbedder{vecs: vecs}
	idx := openCacheIndex(tb, s, cfg.Cluster, iopts)
	var si engine.SemanticIndex = idx
	if wrap != nil {
		si = wrap(idx)
	}
	cfg.Semantic = &engine.SemanticCacheConfig{Model: semModel, Similarity: simDefault, Index: si}
	r := &cacheRig{store: s, up: &countingChat{}, clock: &testClock{now: time.Unix(1_800_000_000, 0)}}
	cfg.Clock = r.clock.Now
	r.cache = engine.NewResponseCache(s, cfg)
	p := engine.CacheProviders(semProviders{cacheProviders: cacheProviders{chat: r.up}, emb: emb}, r.cache)
	m, err := p.ChatModel(engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"})
	if err != nil {
		tb.Fatal(err)
	}
	r.model = m
	return &semRig{cacheRig: r, emb: emb, p: p, idx: idx}
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
		Semantic: &engine.SemanticCacheConfig{Model: semModel, Similarity: 0.85, Index: low.idx}})
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

// semItems counts the vectors of the cache's semantic index.
func semItems(t *testing.T, idx *index.Manager) int {
	t.Helper()
	for _, st := range idx.Stats() {
		if st.MemoryID == engine.SemanticIndexID(semModel) {
			return st.Vectors
		}
	}
	return 0
}

func TestResponseCacheSemanticExpiry(t *testing.T) {
	r := newSemRig(t, engine.ResponseCacheConfig{TTL: time.Minute, MaxEntries: 2})
	semChat(t, r.model, "alice", userReq(qFrance))
	if n := semItems(t, r.idx); n != 1 {
		t.Fatalf("%d index items after one answer, want 1", n)
	}
	// An expired entry never answers a paraphrase, and the sweep removes its item.
	r.clock.Add(2 * time.Minute)
	if _, out, _, _ := semChat(t, r.model, "alice", userReq(qParaphr)); out != engine.CacheMiss {
		t.Fatalf("paraphrase of an expired entry: %q", out)
	}
	if _, _, err := r.cache.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := semItems(t, r.idx); n != 1 {
		t.Fatalf("%d index items after the sweep, want the paraphrase's 1", n)
	}
	// Eviction past the cap removes the evicted entries' items.
	semChat(t, r.model, "alice", userReq(qNearMiss))
	semChat(t, r.model, "alice", userReq("a third question"))
	n, err := r.cache.Len(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if items := semItems(t, r.idx); items != n || n > 2 {
		t.Fatalf("%d index items for %d entries (cap 2)", items, n)
	}
	// Replacing an entry (refresh) keeps one item for it.
	ctx, _ := engine.WithCacheTicket(context.Background(), "alice", engine.CacheRefresh)
	if _, err := r.model.Chat(ctx, userReq("a third question")); err != nil {
		t.Fatal(err)
	}
	if n, err = r.cache.Len(context.Background()); err != nil {
		t.Fatal(err)
	}
	if items := semItems(t, r.idx); items != n {
		t.Fatalf("%d index items for %d entries after a refresh", items, n)
	}
}

// TestResponseCacheSemanticSharedStore: two nodes of a cluster on one
// store, each with its own replica of the semantic index: a paraphrase
// through one node hits the answer the other stored, and once a node's
// sweep removed the expired entry (and its item, through the change feed)
// the other (whose clock still calls it live) no longer matches it.
func TestResponseCacheSemanticSharedStore(t *testing.T) {
	bus := &feedBus{subs: map[int][]func(string){}}
	first := newSemRig(t, engine.ResponseCacheConfig{})
	vecs := first.emb.vecs
	a := newSemRigOn(t, first.store, engine.ResponseCacheConfig{TTL: time.Minute, Cluster: &feedCluster{bus: bus, self: 1}}, vecs)
	b := newSemRigOn(t, first.store, engine.ResponseCacheConfig{TTL: time.Minute, Cluster: &feedCluster{bus: bus, self: 2}}, vecs)
	semChat(t, a.model, "alice", userReq(qFrance))
	if text, out, match, _ := semChat(t, b.model, "alice", userReq(qParaphr)); out != engine.CacheHit || match != engine.CacheMatchSemantic || text != "answer 1" || b.up.calls.Load() != 0 {
		t.Fatalf("node b: %q %q %q, %d upstream calls; want node a's answer", text, out, match, b.up.calls.Load())
	}
	if n := semItems(t, b.idx); n != 1 {
		t.Fatalf("node b's replica holds %d items, want node a's 1", n)
	}
	a.clock.Add(2 * time.Minute)
	if _, _, err := a.cache.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, out, _, _ := semChat(t, b.model, "alice", userReq(qParaphr)); out != engine.CacheMiss {
		t.Fatalf("node b after the sweep: %q", out)
	}
	// Node b's search brought its replica up to date: a's removal, then b's own answer.
	if n := semItems(t, b.idx); n != 1 {
		t.Fatalf("node b's replica holds %d items after the sweep and its own answer, want 1", n)
	}
}

// forgetfulIndex drops the Adds made while forget is set and counts searches.
type forgetfulIndex struct {
	engine.SemanticIndex
	forget   atomic.Bool
	searches atomic.Int64
}

func (f *forgetfulIndex) Add(ctx context.Context, id string, chunks []engine.IndexedChunk) error {
	if f.forget.Load() {
		return nil
	}
	return f.SemanticIndex.Add(ctx, id, chunks)
}

func (f *forgetfulIndex) SearchVector(ctx context.Context, id string, vec []float32, k int, allow func(string) bool) ([]engine.ChunkHit, error) {
	f.searches.Add(1)
	return f.SemanticIndex.SearchVector(ctx, id, vec, k, allow)
}

// TestResponseCacheSemanticUsesIndex: semantic hits come from the index
// and nothing else. An answer stored while the index forgets its item
// still answers exact lookups but no paraphrase, although its entry in the
// store carries everything a scan of the store would need.
func TestResponseCacheSemanticUsesIndex(t *testing.T) {
	var fi *forgetfulIndex
	base := newSemRig(t, engine.ResponseCacheConfig{})
	r := newSemRigIdx(t, base.store, engine.ResponseCacheConfig{}, base.emb.vecs, index.Options{}, func(si engine.SemanticIndex) engine.SemanticIndex {
		fi = &forgetfulIndex{SemanticIndex: si}
		return fi
	})
	fi.forget.Store(true)
	semChat(t, r.model, "alice", userReq(qFrance))
	if _, out, match, _ := semChat(t, r.model, "alice", userReq(qFrance)); out != engine.CacheHit || match != engine.CacheMatchExact {
		t.Fatalf("exact repeat: %q %q, want an exact hit", out, match)
	}
	if fi.searches.Load() != 1 {
		t.Fatalf("%d index searches for a miss and an exact hit, want 1 (the miss's)", fi.searches.Load())
	}
	if text, out, _, _ := semChat(t, r.model, "alice", userReq(qParaphr)); out != engine.CacheMiss || text != "answer 2" {
		t.Fatalf("paraphrase of an answer the index does not hold: %q %q, want a miss", text, out)
	}
	if fi.searches.Load() != 2 {
		t.Fatalf("%d index searches after a paraphrase, want 2", fi.searches.Load())
	}
	// Once the index holds the near miss, a paraphrase of qFrance finds it
	// (cosine 0.952), not qFrance's closer answer, which only the store holds.
	fi.forget.Store(false)
	semChat(t, r.model, "alice", userReq(qNearMiss))
	const again = "France: what is its capital?"
	r.emb.vecs[again] = r.emb.vecs[qParaphr]
	if text, out, match, _ := semChat(t, r.model, "alice", userReq(again)); out != engine.CacheHit || match != engine.CacheMatchSemantic || text != "answer 3" {
		t.Fatalf("paraphrase with the near miss indexed: %q %q %q, want the near miss's answer 3", text, out, match)
	}
}

// TestResponseCacheSemanticManyEntries: one context holds far more
// answers than a per-context list kept (64) and the index searches its
// graph (the exact-scan threshold is set low), filtered to the caller's
// scope: every paraphrase hits its own answer, and another tenant's
// identical paraphrases all miss.
func TestResponseCacheSemanticManyEntries(t *testing.T) {
	const n, dims = 150, 32
	rng := rand.New(rand.NewSource(7))
	vecs := map[string][]float32{}
	for i := 0; i < n; i++ {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		vecs[fmt.Sprintf("question %d", i)] = v
		p := append([]float32(nil), v...)
		p[0] += 0.05
		vecs[fmt.Sprintf("paraphrase %d", i)] = p
	}
	base := newSemRig(t, engine.ResponseCacheConfig{})
	r := newSemRigIdx(t, base.store, engine.ResponseCacheConfig{}, vecs, index.Options{ExactThreshold: 16, HNSW: index.HNSWConfig{Seed: 1}}, nil)
	for i := 0; i < n; i++ {
		semChat(t, r.model, "alice", userReq(fmt.Sprintf("question %d", i)))
	}
	if got := semItems(t, r.idx); got != n {
		t.Fatalf("%d index items, want %d", got, n)
	}
	for i := 0; i < n; i += 7 {
		want := fmt.Sprintf("answer %d", i+1)
		if text, out, match, _ := semChat(t, r.model, "alice", userReq(fmt.Sprintf("paraphrase %d", i))); out != engine.CacheHit || match != engine.CacheMatchSemantic || text != want {
			t.Fatalf("paraphrase %d: %q %q %q, want %s", i, text, out, match, want)
		}
	}
	calls := r.up.calls.Load()
	for i := 0; i < n; i += 7 {
		if text, out, _, _ := semChat(t, r.model, "bob", userReq(fmt.Sprintf("paraphrase %d", i))); out != engine.CacheMiss || text != fmt.Sprintf("answer %d", calls+1) {
			t.Fatalf("bob's paraphrase %d: %q %q, want a miss", i, text, out)
		}
		calls++
	}
}
