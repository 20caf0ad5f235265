package memory

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/blob/postgres"
	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index"
	"github.com/hearth-dev/hearth/providers"
)

// testBus carries the change notifications of a testCluster's nodes.
// Notifications are delivered a little after Publish, on their own
// goroutine, as the real feed does after the commit; a notification that
// arrives early is covered by the dispatcher's periodic scan.
type testBus struct {
	mu   sync.Mutex
	subs []busSub
}

type busSub struct {
	node, topic string
	fn          func(string)
}

// testNode is one node's engine.Cluster: shared (Shared is true), with
// cluster locks held in one engine.Local that every node of the test
// shares.
type testNode struct {
	*engine.Local
	name string
	bus  *testBus
}

func (n *testNode) Shared() bool { return true }
func (n *testNode) Node() string { return n.name }
func (n *testNode) Subscribe(topic string, fn func(string)) {
	n.bus.mu.Lock()
	defer n.bus.mu.Unlock()
	n.bus.subs = append(n.bus.subs, busSub{n.name, topic, fn})
}

func (n *testNode) Publish(_ engine.Tx, topic, key string) error {
	n.bus.mu.Lock()
	defer n.bus.mu.Unlock()
	for _, s := range n.bus.subs {
		if s.node != n.name && s.topic == topic {
			time.AfterFunc(5*time.Millisecond, func() { s.fn(key) })
		}
	}
	return nil
}

// testCluster is several memory services ("nodes") over one database, one
// search index and one clock. With Badger every node uses the one store;
// with PostgreSQL each node has its own connection pool.
type testCluster struct {
	store engine.Store
	open  func(node string) engine.Store
	idx   *index.Manager
	reg   engine.Providers
	ks    *engine.Keysets
	clock *testClock
	locks *engine.Local
	bus   *testBus
	quiet *slog.Logger
}

func newTestCluster(t *testing.T) *testCluster {
	t.Helper()
	dir := t.TempDir()
	c := &testCluster{clock: newTestClock(), locks: &engine.Local{}, bus: &testBus{},
		quiet: slog.New(slog.NewTextHandler(io.Discard, nil))}
	bs := blob.New(blob.Options{Dir: filepath.Join(dir, "db"), Logger: c.quiet})
	if err := bs.Open(); err != nil {
		t.Fatal(err)
	}
	c.store = bs
	c.open = func(string) engine.Store { return bs }
	c.init(t, dir)
	return c
}

// newPGCluster is a testCluster on a fresh PostgreSQL database (pgtest).
func newPGCluster(t *testing.T) *testCluster {
	t.Helper()
	url := pgtest.URL(t)
	c := &testCluster{clock: newTestClock(), locks: &engine.Local{}, bus: &testBus{},
		quiet: slog.New(slog.NewTextHandler(io.Discard, nil))}
	c.open = func(string) engine.Store {
		s := postgres.New(postgres.Options{URL: url})
		if err := s.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	c.store = c.open("")
	c.init(t, t.TempDir())
	return c
}

func (c *testCluster) init(t *testing.T, dir string) {
	reg, err := providers.New(providers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c.reg = reg
	if c.ks, err = engine.NewKeysets(c.store, reg, []byte("memory-test-secret-32-bytes-long")); err != nil {
		t.Fatal(err)
	}
	c.idx = index.NewManager(c.store, filepath.Join(dir, "bleve"), index.Options{SnapshotInterval: -1, Logger: c.quiet})
	if err := c.idx.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.idx.Close()
		c.store.Close()
	})
}

// cluster returns the engine.Cluster of node name.
func (c *testCluster) cluster(name string) *testNode {
	return &testNode{Local: c.locks, name: name, bus: c.bus}
}

// node opens a memory service as node name; it is halted (as a crash
// would stop it) at the end of the test unless the test stops it first.
func (c *testCluster) node(t *testing.T, name string, adjust func(*Config)) *Service {
	t.Helper()
	cfg := Config{Store: c.open(name), Index: c.idx, Providers: c.reg, Keysets: c.ks, UploadSecret: []byte(strings.Repeat("s", 32)),
		Logger: c.quiet, Now: c.clock.now, Cluster: c.cluster(name), IdleWait: 10 * time.Millisecond, LeaseTTL: time.Minute}
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
	t.Cleanup(func() { s.Halt() })
	return s
}

// gatedProviders hands out embedders wrapped by wrap.
type gatedProviders struct {
	engine.Providers
	wrap func(engine.Embedder) engine.Embedder
}

func (g gatedProviders) Embedder(ref engine.ModelRef) (engine.Embedder, error) {
	e, err := g.Providers.Embedder(ref)
	if err != nil {
		return nil, err
	}
	return g.wrap(e), nil
}

// pausingEmbedder stops in its call number at (counting from 1): it
// closes paused and waits for resume, then answers with vectors of its
// own, unlike the real embedder's, so that a write of them would show.
type pausingEmbedder struct {
	engine.Embedder
	at             int
	paused, resume chan struct{}
	mu             sync.Mutex
	calls          int
}

func (p *pausingEmbedder) Embed(ctx context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	p.mu.Lock()
	p.calls++
	n := p.calls
	p.mu.Unlock()
	if n < p.at {
		return p.Embedder.Embed(ctx, req)
	}
	if n == p.at {
		close(p.paused)
	}
	<-p.resume
	vecs, err := p.Embedder.Embed(ctx, req)
	for _, v := range vecs {
		for i := range v {
			v[i] = 1
		}
	}
	return vecs, err
}

// busy reports whether s is running a job.
func busy(s *Service) bool {
	s.ingest.mu.Lock()
	defer s.ingest.mu.Unlock()
	return len(s.ingest.busy) > 0
}

// upload stores text as a document through s, without waiting.
func upload(t *testing.T, s *Service, mem, name, text string) {
	t.Helper()
	ctx := context.Background()
	tk, err := s.CreateUpload(ctx, "ann", mem, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteUpload(ctx, UploadRequest{Token: tk.Token, ContentType: "text/plain", Body: strings.NewReader(text)}); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// docStatus reads a document's status.
func docStatus(t *testing.T, s *Service, mem, name string) *Document {
	t.Helper()
	_, d, err := s.Document(context.Background(), "ann", mem, name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rawPrefix returns every key and value under prefix.
func rawPrefix(t *testing.T, s engine.Store, prefix string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := s.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan(prefix, "", func(k string, v []byte) error {
			out[k] = string(v)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// jobsLeft counts the stored jobs.
func jobsLeft(t *testing.T, s engine.Store) int { return len(rawPrefix(t, s, jobPrefix)) }

func TestMain(m *testing.M) { pgtest.Main(m) }
