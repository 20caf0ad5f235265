package index

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index/internal/clustertest"
)

// clusterNode is one Manager of a test cluster: its own Bleve directory and
// cluster node, the shared store and chunk texts.
type clusterNode struct {
	*Manager
	node *clustertest.Node
}

type testCluster struct {
	t     *testing.T
	hub   *clustertest.Hub
	store engine.Store
	src   *textSource
	dirs  map[string]string
	opts  Options
}

func newTestCluster(t *testing.T, store engine.Store, opts Options) *testCluster {
	return &testCluster{t: t, hub: clustertest.NewHub(), store: store, src: &textSource{}, dirs: map[string]string{}, opts: opts}
}

// start opens (or reopens, on the same Bleve directory) the node name.
func (c *testCluster) start(name string) *clusterNode {
	c.t.Helper()
	if c.dirs[name] == "" {
		c.dirs[name] = c.t.TempDir()
	}
	n := c.hub.Node(name, c.store)
	opts := c.opts
	opts.Cluster = n
	opts.Logger = quietLogger()
	if opts.SnapshotInterval == 0 {
		opts.SnapshotInterval = -1
	}
	if opts.HNSW.Seed == 0 {
		opts.HNSW = HNSWConfig{M: 12, EfConstruction: 100, Seed: 1}
	}
	m := NewManager(n.Store(), c.dirs[name], opts)
	m.partSize = 16 << 10
	m.SetChunkSource(c.src)
	if err := m.Open(context.Background()); err != nil {
		c.t.Fatal(err)
	}
	cn := &clusterNode{Manager: m, node: n}
	c.t.Cleanup(func() { cn.stop() })
	return cn
}

func (n *clusterNode) stop() {
	n.node.Leave()
	n.Close()
}

// add indexes chunks with vectors and texts, as the memory engine does:
// texts first (the chunk records), then the index.
func (c *testCluster) add(n *clusterNode, mem string, from int, vs [][]float32) {
	c.t.Helper()
	chunks := make([]engine.IndexedChunk, len(vs))
	for i, v := range vs {
		chunks[i] = engine.IndexedChunk{ID: chunkID(from + i), Vector: v, Text: wordOf(from + i)}
	}
	c.src.put(mem, chunks)
	if err := n.Add(context.Background(), mem, chunks); err != nil {
		c.t.Fatal(err)
	}
}

func (c *testCluster) remove(n *clusterNode, mem string, ids ...string) {
	c.t.Helper()
	if err := n.Remove(context.Background(), mem, ids); err != nil {
		c.t.Fatal(err)
	}
	c.src.del(mem, ids)
}

func (s *textSource) del(mem string, ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.texts[mem], id)
	}
}

func (s *textSource) scanCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scans
}

// wordOf is a token only chunk i contains.
func wordOf(i int) string { return fmt.Sprintf("zq%dx common", i) }

// sees reports whether n finds chunk i by vector and by keyword.
func sees(t *testing.T, n *clusterNode, mem string, i int, v []float32) (vec, kw bool) {
	t.Helper()
	ctx := context.Background()
	hits, err := n.SearchVector(ctx, mem, v, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	vec = len(hits) == 1 && hits[0].ID == chunkID(i) && hits[0].Score > 0.999
	khits, err := n.SearchKeyword(ctx, mem, strings.Fields(wordOf(i))[0], 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	kw = len(khits) == 1 && khits[0].ID == chunkID(i)
	return vec, kw
}

// eventually retries cond for up to 10 seconds (a bound on correctness,
// not a measure of speed: the lag is measured by BenchmarkClusterLag).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func badgerStore(t *testing.T) engine.Store {
	s := blob.New(blob.Options{Dir: filepath.Join(t.TempDir(), "data")})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestClusterReplicasBadger(t *testing.T) { testClusterReplicas(t, badgerStore(t)) }

func TestClusterConcurrentAddsBadger(t *testing.T) { testClusterConcurrentAdds(t, badgerStore(t)) }

func TestClusterTrimmedLogBadger(t *testing.T) { testClusterTrimmedLog(t, badgerStore(t)) }

// testClusterReplicas: B sees A's adds and removes, in both indexes, by
// notification alone (no poll); B restarted after missing changes catches
// up from the log without rebuilding its Bleve index.
func testClusterReplicas(t *testing.T, store engine.Store) {
	ctx := context.Background()
	c := newTestCluster(t, store, Options{PollInterval: time.Hour})
	a, b := c.start("a"), c.start("b")
	vs := clustered(60, 16, 6, 5)
	c.add(a, "mem", 0, vs[:20])
	// B loads the memory (first use catches up), then follows A.
	if v, k := sees(t, b, "mem", 3, vs[3]); !v || !k {
		t.Fatalf("first use on B: vector %v keyword %v", v, k)
	}
	c.add(a, "mem", 20, vs[20:40])
	eventually(t, "B sees A's add", func() bool { v, k := sees(t, b, "mem", 33, vs[33]); return v && k })
	c.remove(a, "mem", chunkID(33), chunkID(5))
	eventually(t, "B drops A's removes", func() bool {
		v1, k1 := sees(t, b, "mem", 33, vs[33])
		v2, k2 := sees(t, b, "mem", 5, vs[5])
		return !v1 && !k1 && !v2 && !k2
	})
	// And the other way.
	c.add(b, "mem", 40, vs[40:45])
	eventually(t, "A sees B's add", func() bool { v, k := sees(t, a, "mem", 42, vs[42]); return v && k })

	// B leaves, A changes the memory, B comes back on its own Bleve dir.
	b.stop()
	scans := c.src.scanCount()
	c.add(a, "mem", 45, vs[45:60])
	c.remove(a, "mem", chunkID(0))
	b = c.start("b")
	if v, k := sees(t, b, "mem", 50, vs[50]); !v || !k {
		t.Fatalf("restarted B misses a change: vector %v keyword %v", v, k)
	}
	if v, k := sees(t, b, "mem", 0, vs[0]); v || k {
		t.Fatalf("restarted B still finds a removed chunk: vector %v keyword %v", v, k)
	}
	if got := c.src.scanCount(); got != scans {
		t.Fatalf("B rebuilt its keyword index from the chunk texts (%d scans), want a catch-up from the log", got-scans)
	}
	wantLive := 60 - 3
	if s := memStats(t, b.Manager, "mem"); s.Vectors != wantLive || s.KeywordDocs != uint64(wantLive) {
		t.Fatalf("B: %d vectors, %d keyword docs, want %d", s.Vectors, s.KeywordDocs, wantLive)
	}
	has, err := b.HasVectors(ctx, "mem", []string{chunkID(0), chunkID(59)})
	if err != nil || has[0] || !has[1] {
		t.Fatalf("HasVectors on B: %v %v", has, err)
	}
}

// testClusterConcurrentAdds: A and B add to one memory at once; every
// chunk ends up in both nodes' indexes.
func testClusterConcurrentAdds(t *testing.T, store engine.Store) {
	c := newTestCluster(t, store, Options{PollInterval: time.Hour})
	a, b := c.start("a"), c.start("b")
	const batches, size = 15, 8
	vs := clustered(2*batches*size, 16, 10, 9)
	var wg sync.WaitGroup
	for ni, n := range []*clusterNode{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range batches {
				from := (ni*batches + i) * size
				chunks := make([]engine.IndexedChunk, size)
				for j := range chunks {
					chunks[j] = engine.IndexedChunk{ID: chunkID(from + j), Vector: vs[from+j], Text: wordOf(from + j)}
				}
				c.src.put("mem", chunks)
				if err := n.Add(context.Background(), "mem", chunks); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	all := make([]string, len(vs))
	for i := range all {
		all[i] = chunkID(i)
	}
	for _, n := range []*clusterNode{a, b} {
		eventually(t, n.node.Node()+" holds every chunk", func() bool {
			s := memStats(t, n.Manager, "mem")
			return s.Vectors == len(vs) && s.KeywordDocs == uint64(len(vs))
		})
		has, err := n.HasVectors(context.Background(), "mem", all)
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range has {
			if !h {
				t.Fatalf("%s lost chunk %d", n.node.Node(), i)
			}
		}
	}
}

// testClusterTrimmedLog: B misses changes (its notifications are lost)
// while A snapshots and trims the log past B's position; B's poll finds it
// behind and rebuilds from the records and chunk texts; a node started
// afterwards loads A's snapshot.
func testClusterTrimmedLog(t *testing.T, store engine.Store) {
	ctx := context.Background()
	c := newTestCluster(t, store, Options{PollInterval: 20 * time.Millisecond, LogRetention: time.Nanosecond})
	a, b := c.start("a"), c.start("b")
	vs := clustered(40, 16, 4, 3)
	c.add(a, "mem", 0, vs[:10])
	if v, k := sees(t, b, "mem", 1, vs[1]); !v || !k {
		t.Fatalf("first use on B: vector %v keyword %v", v, k)
	}
	b.node.Mute(true)
	scans := c.src.scanCount()
	// Holding B's memory keeps its poll from catching up before the trim.
	mi, _ := b.mem(ctx, "mem")
	mi.mu.Lock()
	c.add(a, "mem", 10, vs[10:30])
	c.remove(a, "mem", chunkID(2))
	for range 2 { // the first records a mark, the second trims up to it
		if err := a.Maintain(ctx); err != nil {
			mi.mu.Unlock()
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	n := 0
	store.View(ctx, func(tx engine.Tx) error {
		return tx.Scan(logPrefix("mem"), "", func(string, []byte) error { n++; return nil })
	})
	mi.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d change log entries left after a snapshot past them and the retention", n)
	}
	eventually(t, "B catches up by polling after the log was trimmed", func() bool {
		v1, k1 := sees(t, b, "mem", 25, vs[25])
		v2, k2 := sees(t, b, "mem", 2, vs[2])
		return v1 && k1 && !v2 && !k2
	})
	if c.src.scanCount() == scans {
		t.Fatal("B did not rebuild its keyword index although the log was trimmed past it")
	}
	d := c.start("d")
	if v, k := sees(t, d, "mem", 29, vs[29]); !v || !k {
		t.Fatalf("new node D: vector %v keyword %v", v, k)
	}
	if s := memStats(t, d.Manager, "mem"); !s.Load.FromSnapshot || s.Vectors != 29 {
		t.Fatalf("D did not load A's snapshot: %+v", s)
	}
}

func TestClusterReadYourWritesBadger(t *testing.T) { testClusterReadYourWrites(t, badgerStore(t)) }

// testClusterReadYourWrites: a search on B right after A's add returns
// it, with B's notifications lost and no poll: a search reads the stored
// seq first, so what completed through one node is found on every node.
func testClusterReadYourWrites(t *testing.T, store engine.Store) {
	c := newTestCluster(t, store, Options{PollInterval: time.Hour})
	a, b := c.start("a"), c.start("b")
	vs := clustered(30, 16, 3, 7)
	c.add(a, "mem", 0, vs[:10])
	if v, k := sees(t, b, "mem", 4, vs[4]); !v || !k {
		t.Fatalf("first use on B: vector %v keyword %v", v, k)
	}
	b.node.Mute(true)
	c.add(a, "mem", 10, vs[10:30])
	if v, k := sees(t, b, "mem", 22, vs[22]); !v || !k {
		t.Fatalf("B's search right after A's add: vector %v keyword %v, want both found", v, k)
	}
	c.remove(a, "mem", chunkID(22))
	if v, k := sees(t, b, "mem", 22, vs[22]); v || k {
		t.Fatalf("B's search right after A's remove still finds it: vector %v keyword %v", v, k)
	}
}
