package memory

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/rank"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
)

// newTestService opens a store, an index and a service on a temp dir.
func newTestService(t testing.TB, adjust func(*Config)) *Service {
	t.Helper()
	s, stop := openService(t, t.TempDir(), adjust)
	t.Cleanup(stop)
	return s
}

// openService opens a store, an index and a service on dir; stop closes
// them (once), so a test can open the same dir again.
func openService(t testing.TB, dir string, adjust func(*Config)) (*Service, func()) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := blob.New(blob.Options{Dir: filepath.Join(dir, "db"), Logger: quiet})
	if err := store.Open(); err != nil {
		t.Fatal(err)
	}
	reg, err := providers.New(providers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := engine.NewKeysets(store, reg, []byte("memory-test-secret-32-bytes-long"))
	if err != nil {
		t.Fatal(err)
	}
	idx := index.NewManager(store, filepath.Join(dir, "bleve"), index.Options{SnapshotInterval: -1, Logger: quiet})
	if err := idx.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: store, Index: idx, Providers: reg, Keysets: ks, UploadSecret: []byte(strings.Repeat("s", 32)),
		BaseURL: "http://hearth.test/", Logger: quiet}
	if adjust != nil {
		adjust(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	return s, func() {
		once.Do(func() {
			s.Close()
			idx.Close()
			store.Close()
		})
	}
}

type fixedBatch int

func (fixedBatch) Embed(context.Context, *engine.EmbedRequest) ([][]float32, error) { return nil, nil }
func (b fixedBatch) MaxBatch() int                                                  { return int(b) }

func TestBatches(t *testing.T) {
	s := &Service{cfg: Config{BatchChars: 10}}
	texts := []string{"aaaa", "bbbb", "cccc", "dddddddddddddddd", "e", "f", "g"}
	got := s.batches(fixedBatch(3), texts)
	want := [][2]int{{0, 2}, {2, 3}, {3, 4}, {4, 7}}
	if len(got) != len(want) {
		t.Fatalf("batches %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("batches %v, want %v", got, want)
		}
	}
	if got := s.batches(fixedBatch(0), nil); len(got) != 0 {
		t.Fatalf("no texts: %v", got)
	}
}

func TestFusionScale(t *testing.T) {
	f := DefaultFusion()
	hits := rank.FuseRRF([]engine.ChunkHit{{ID: "a"}, {ID: "b"}}, []engine.ChunkHit{{ID: "a"}, {ID: "c"}}, 1, 1, f.K)
	hits = rank.ScaleRRF(hits, 2, f.K)
	if hits[0].ID != "a" || hits[0].Score != 1 {
		t.Fatalf("first in both rankings must be 1: %+v", hits)
	}
	for _, h := range hits[1:] {
		if h.Score <= 0.45 || h.Score >= 0.55 {
			t.Fatalf("first or second in one ranking is about 0.5: %+v", hits)
		}
	}
	if err := (&Fusion{VectorWeight: 0, KeywordWeight: 0, K: 1}).validate(); err == nil {
		t.Fatal("both weights 0 must be refused")
	}
	if err := (&Fusion{VectorWeight: -1, KeywordWeight: 1}).validate(); err == nil {
		t.Fatal("negative weight must be refused")
	}
}

func TestVectorsAndChunkIDs(t *testing.T) {
	v := normalize([]float32{3, 4})
	if v[0] != 0.6 || v[1] != 0.8 {
		t.Fatalf("normalize: %v", v)
	}
	if z := normalize([]float32{0, 0}); z[0] != 0 {
		t.Fatalf("zero vector: %v", z)
	}
	if chunkVersion(chunkID("vABC", 12)) != "vABC" || chunkID("v", 7) != "v.000007" {
		t.Fatal("chunk ids")
	}
	if _, err := checkVectors([][]float32{{1, 2}, {1}}, 2); err == nil {
		t.Fatal("vectors of different sizes must be refused")
	}
	if _, err := checkVectors([][]float32{{1}}, 2); err == nil {
		t.Fatal("a missing vector must be refused")
	}
}

func TestUploadTokens(t *testing.T) {
	start := time.Now()
	var offset atomic.Int64
	s := newTestService(t, func(c *Config) { c.Now = func() time.Time { return start.Add(time.Duration(offset.Load())) } })
	ctx := context.Background()
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "hearth:bm25"}); err != nil {
		t.Fatal(err)
	}
	ticket, err := s.CreateUpload(ctx, "ann", "kb", "a.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ticket.ExpiresAt.Equal(start.Add(2 * time.Hour).UTC().Truncate(time.Second)) {
		t.Fatalf("expiry %v", ticket.ExpiresAt)
	}
	otherID := []byte(ticket.Token)
	otherID[1] ^= 1 // another upload id, same signature
	for _, bad := range []string{"", "x", "a.b", "a.b.c.d", ticket.Token + "x", string(otherID)} {
		if _, err := s.verifyToken(ctx, bad); engine.ErrorCode(err) != engine.CodeForbidden {
			t.Errorf("token %q: %v", bad, err)
		}
	}
	if rec, err := s.verifyToken(ctx, ticket.Token); err != nil || rec.Document != "a.txt" || rec.Owner != "ann" {
		t.Fatalf("good token: %+v %v", rec, err)
	}
	// A token signed with another secret is refused.
	other := &Service{cfg: Config{UploadSecret: []byte(strings.Repeat("t", 32))}}
	rec, _ := s.verifyToken(ctx, ticket.Token)
	parts := strings.Split(ticket.Token, ".")
	forged := parts[0] + "." + parts[1] + "." + other.sign(rec, parts[1])
	if _, err := s.verifyToken(ctx, forged); engine.ErrorCode(err) != engine.CodeForbidden {
		t.Fatalf("forged: %v", err)
	}
	// Expired records are swept.
	offset.Store(int64(3 * time.Hour))
	if err := s.sweepUploads(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.verifyToken(ctx, ticket.Token); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Fatalf("swept: %v", err)
	}
}

func TestKeywordOnlyIngest(t *testing.T) {
	s := newTestService(t, nil)
	ctx := context.Background()
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "hearth:bm25"}); err != nil {
		t.Fatal(err)
	}
	ticket, err := s.CreateUpload(ctx, "ann", "kb", "a.md", map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteUpload(ctx, UploadRequest{Token: ticket.Token, ContentType: "text/markdown", Body: strings.NewReader("# Title\n\nkeyword only memories need no embedder")}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, d, err := s.Document(ctx, "ann", "kb", "a.md")
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == StatusCompleted {
			break
		}
		if d.Status == StatusFailed || time.Now().After(deadline) {
			t.Fatalf("document: %+v", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
	res, err := s.Retrieve(ctx, "ann", RetrieveRequest{Query: "embedder", Memories: []MemoryQuery{{Name: "kb"}}, TopK: 5})
	if err != nil || len(res) != 1 || res[0].Meta["k"] != "v" || res[0].Meta[MetaDocumentName] != "a.md" || res[0].Similarity != 1 {
		t.Fatalf("retrieve: %+v %v", res, err)
	}
	if n := 0; s.store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("idx/", "", func(k string, _ []byte) error {
			if strings.Contains(k, "/v/") {
				n++
			}
			return nil
		})
	}) != nil || n != 0 {
		t.Fatal("a keyword-only memory stores no vectors")
	}
}

// failingEmbedder fails every call with the next of its errors (the last
// one repeats).
type failingEmbedder struct {
	errs  []error
	calls int
}

func (f *failingEmbedder) Embed(context.Context, *engine.EmbedRequest) ([][]float32, error) {
	f.calls++
	return nil, f.errs[min(f.calls, len(f.errs))-1]
}

func (*failingEmbedder) MaxBatch() int { return 8 }

// TestEmbedRetryTimings: EmbedAttempts bounds the tries of a batch and
// RetryMaxDelay caps every wait, the provider's Retry-After included
// (HEARTH_EMBED_RETRIES, HEARTH_EMBED_RETRY_MAX_WAIT).
func TestEmbedRetryTimings(t *testing.T) {
	limited := &engine.Error{Code: engine.CodeRateLimited, Message: "slow down", RetryAfter: 120}
	down := engine.Errorf(engine.CodeUpstream, "bad gateway")
	for _, tc := range []struct {
		attempts int
		maxWait  time.Duration
		errs     []error
		want     []time.Duration
	}{
		{3, 5 * time.Second, []error{down, limited}, []time.Duration{2 * time.Second, 5 * time.Second}},
		{4, time.Minute, []error{down}, []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{3, time.Second, []error{down}, []time.Duration{time.Second, time.Second}}, // the base wait is capped too
		{1, time.Minute, []error{down}, nil},
		{4, time.Minute, []error{engine.Errorf(engine.CodeUnauthorized, "bad key")}, nil}, // not retryable
	} {
		var waits []time.Duration
		s, err := New(Config{Store: &nopStore{}, Index: nopIndex{}, Providers: nopProviders{}, Keysets: &engine.Keysets{},
			UploadSecret: make([]byte, 32), EmbedAttempts: tc.attempts, RetryMaxDelay: tc.maxWait,
			Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		emb := &failingEmbedder{errs: tc.errs}
		if _, err := s.embedBatch(context.Background(), emb, &engine.EmbedRequest{Inputs: []string{"x"}}, true); err == nil {
			t.Fatal("want the last error")
		}
		if emb.calls != len(tc.want)+1 || !slices.Equal(waits, tc.want) {
			t.Errorf("attempts %d, max %s: %d calls, waits %v, want %v", tc.attempts, tc.maxWait, emb.calls, waits, tc.want)
		}
	}
}

// Stand-ins for the dependencies New requires but embedBatch never uses.
type (
	nopStore     struct{ engine.Store }
	nopIndex     struct{ engine.SearchIndex }
	nopProviders struct{ engine.Providers }
)
