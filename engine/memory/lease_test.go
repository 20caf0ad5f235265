package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// TestLeaseTakeover: node A claims a job and stops answering mid-way
// (after storing some chunks); once its lease has passed, node B takes the
// job over and completes it with every chunk once and none missing. When A
// wakes up, its writes are refused (fencing): nothing B wrote changes, and
// A abandons the job.
func TestLeaseTakeover(t *testing.T) { onStores(t, testLeaseTakeover) }

func testLeaseTakeover(t *testing.T, c *testCluster) {
	pause := &pausingEmbedder{at: 4, paused: make(chan struct{}), resume: make(chan struct{})}
	a := c.node(t, "a", func(cfg *Config) {
		cfg.BatchChars = 2500
		cfg.Providers = gatedProviders{cfg.Providers, func(e engine.Embedder) engine.Embedder { pause.Embedder = e; return pause }}
	})
	ctx := context.Background()
	m, err := a.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: "hearth:hash-embed", ChunkSize: ptr(1000), ChunkOverlap: ptr(100)})
	if err != nil {
		t.Fatal(err)
	}
	upload(t, a, "kb", "a.txt", synthText(7, 20000))
	select {
	case <-pause.paused:
	case <-time.After(20 * time.Second):
		t.Fatal("node A never reached its fourth embedding batch")
	}
	if n := len(rawPrefix(t, c.store, chunkPrefix(m.ID))); n == 0 {
		t.Fatal("node A stored no chunk before it paused")
	}
	var job Job
	for _, v := range rawPrefix(t, c.store, jobPrefix) {
		if err := json.Unmarshal([]byte(v), &job); err != nil {
			t.Fatal(err)
		}
	}
	if job.State != JobRunning || job.Node != "a" || job.Claim != 1 || !job.LeaseUntil.After(c.clock.now()) {
		t.Fatalf("claimed job: %+v", job)
	}

	b := c.node(t, "b", func(cfg *Config) { cfg.BatchChars = 2500 })
	time.Sleep(30 * time.Millisecond) // B scans a few times: A's lease holds
	if d := docStatus(t, b, "kb", "a.txt"); d.Status != StatusInProgress {
		t.Fatalf("node B took a job under a live lease: %+v", d)
	}
	c.clock.advance(time.Minute + time.Second)
	waitFor(t, "node B to complete the document", func() bool { return docStatus(t, b, "kb", "a.txt").Status == StatusCompleted })
	d := docStatus(t, b, "kb", "a.txt")
	chunks := rawPrefix(t, c.store, chunkPrefix(m.ID))
	vectors := rawPrefix(t, c.store, "idx/"+m.ID+"/v/")
	if len(chunks) != d.Live.Chunks || len(vectors) != d.Live.Chunks || d.Live.Chunks < 8 {
		t.Fatalf("%d chunk records and %d vectors for %d chunks", len(chunks), len(vectors), d.Live.Chunks)
	}
	for i := 0; i < d.Live.Chunks; i++ {
		id := chunkID(d.Live.ID, i)
		if _, ok := chunks[chunkKey(m.ID, id)]; !ok {
			t.Fatalf("chunk %s missing", id)
		}
		if _, ok := vectors["idx/"+m.ID+"/v/"+id]; !ok {
			t.Fatalf("vector of chunk %s missing", id)
		}
	}
	if n := jobsLeft(t, c.store); n != 0 {
		t.Fatalf("%d jobs left", n)
	}

	// A wakes up with vectors of its own and tries to go on.
	close(pause.resume)
	waitFor(t, "node A to abandon the job", func() bool { return !busy(a) })
	if got := rawPrefix(t, c.store, chunkPrefix(m.ID)); fmt.Sprint(got) != fmt.Sprint(chunks) {
		t.Fatal("node A changed chunk records after losing its lease")
	}
	if got := rawPrefix(t, c.store, "idx/"+m.ID+"/v/"); fmt.Sprint(got) != fmt.Sprint(vectors) {
		t.Fatal("node A changed vectors after losing its lease")
	}
	if after := docStatus(t, b, "kb", "a.txt"); !after.UpdatedAt.Equal(d.UpdatedAt) || after.Status != StatusCompleted || jobsLeft(t, c.store) != 0 {
		t.Fatalf("node A changed the document or queued work after losing its lease: %+v", after)
	}
}

// TestFencedWrites: a holder whose job was taken over cannot store chunk
// records, vectors (through the index), the document's status or the
// job's end; the new holder can.
func TestFencedWrites(t *testing.T) { onStores(t, testFencedWrites) }

func testFencedWrites(t *testing.T, c *testCluster) {
	stall := func(cfg *Config) { cfg.Workers = 1; cfg.IdleWait = time.Hour }
	a := c.node(t, "a", stall)
	b := c.node(t, "b", stall)
	// Keep both dispatchers from claiming by hand-made jobs: every claim
	// below is the test's.
	a.ingest.take("j1")
	b.ingest.take("j1")
	ctx := context.Background()
	m, err := a.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel})
	if err != nil {
		t.Fatal(err)
	}
	j := &Job{ID: "j1", Kind: JobIngest, Owner: "ann", Memory: "kb", MemoryID: m.ID, Document: "a.txt", Version: "t1", State: JobQueued}
	if err := c.store.Update(ctx, func(tx engine.Tx) error {
		if err := tx.Put(docKey(m.ID, "a.txt"), &Document{MemoryID: m.ID, Name: "a.txt", Current: Version{ID: "t1"}, Status: StatusQueued}); err != nil {
			return err
		}
		return putJob(tx, j)
	}); err != nil {
		t.Fatal(err)
	}
	ja, ok, err := a.claim(ctx, "j1")
	if err != nil || !ok {
		t.Fatalf("A's claim: %v %v", ok, err)
	}
	if _, ok, _ := b.claim(ctx, "j1"); ok {
		t.Fatal("B claimed a job under A's live lease")
	}
	c.clock.advance(time.Minute)
	jb, ok, err := b.claim(ctx, "j1")
	if err != nil || !ok || jb.Claim != ja.Claim+1 || jb.Node != "b" || jb.Attempts != 2 {
		t.Fatalf("B's takeover: %+v %v %v", jb, ok, err)
	}
	actx, bctx := a.fence(ctx, ja), b.fence(ctx, jb)
	batch := []engine.IndexedChunk{{ID: chunkID("t1", 0), Text: "hello", Vector: []float32{1, 0}}}
	for what, err := range map[string]error{
		"chunk records": a.writeChunks(actx, m.ID, "a.txt", batch),
		"vectors":       a.index.Add(actx, m.ID, batch),
		"stage":         a.setStage(actx, ja, StageIndex),
		"status":        a.failIngest(actx, ja, "stale"),
		"completion":    a.completeIngest(actx, ja, 1, 5),
		"requeue":       a.requeue(actx, ja, true, time.Time{}),
		"lease":         a.renew(ctx, ja),
	} {
		if !errors.Is(err, errLeaseLost) {
			t.Errorf("stale holder's %s: %v, want the lease lost", what, err)
		}
	}
	if n := len(rawPrefix(t, c.store, chunkPrefix(m.ID))) + len(rawPrefix(t, c.store, "idx/"+m.ID+"/v/")); n != 0 {
		t.Fatalf("the stale holder stored %d chunk records and vectors", n)
	}
	if err := b.writeChunks(bctx, m.ID, "a.txt", batch); err != nil {
		t.Fatal(err)
	}
	if err := b.index.Add(bctx, m.ID, batch); err != nil {
		t.Fatal(err)
	}
	if err := b.completeIngest(bctx, jb, 1, 5); err != nil {
		t.Fatal(err)
	}
	if d := docStatus(t, b, "kb", "a.txt"); d.Status != StatusCompleted || jobsLeft(t, c.store) != 0 {
		t.Fatalf("new holder's completion: %+v", d)
	}
}

// TestClaimRace: two nodes with two workers each run twelve queued jobs;
// each is parsed once, by whichever node won its claim.
func TestClaimRace(t *testing.T) { onStores(t, testClaimRace) }

func testClaimRace(t *testing.T, c *testCluster) {
	var mu sync.Mutex
	parsed := map[string][]string{}
	counting := func(node string) func(*Config) {
		return func(cfg *Config) {
			cfg.Parse = func(ctx context.Context, ct, name string, data []byte) (string, error) {
				mu.Lock()
				parsed[name] = append(parsed[name], node)
				mu.Unlock()
				return safeParse(ct, name, data)
			}
		}
	}
	a := c.node(t, "a", counting("a"))
	b := c.node(t, "b", counting("b"))
	ctx := context.Background()
	if _, err := a.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel}); err != nil {
		t.Fatal(err)
	}
	const n = 12
	for i := 0; i < n; i++ {
		s := a
		if i%2 == 1 {
			s = b
		}
		upload(t, s, "kb", fmt.Sprintf("d%02d.txt", i), synthText(uint64(i), 3000))
	}
	waitFor(t, "every document to complete", func() bool {
		for i := 0; i < n; i++ {
			if docStatus(t, a, "kb", fmt.Sprintf("d%02d.txt", i)).Status != StatusCompleted {
				return false
			}
		}
		return jobsLeft(t, c.store) == 0
	})
	mu.Lock()
	defer mu.Unlock()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("d%02d.txt", i)
		if len(parsed[name]) != 1 {
			t.Errorf("%s parsed by %v, want exactly one node", name, parsed[name])
		}
	}
}

// TestExpiredLeasesCountAsInterruptions: a job whose holders die while
// parsing (their leases pass) is failed, naming the step, after
// MaxAttempts starts, instead of crashing nodes forever.
func TestExpiredLeasesCountAsInterruptions(t *testing.T) {
	onStores(t, testExpiredLeasesCountAsInterruptions)
}

func testExpiredLeasesCountAsInterruptions(t *testing.T, c *testCluster) {
	hang := func(cfg *Config) {
		cfg.Parse = func(ctx context.Context, _, _ string, _ []byte) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}
	}
	ctx := context.Background()
	var first *Service
	for attempt := 1; attempt <= 3; attempt++ {
		s := c.node(t, fmt.Sprintf("n%d", attempt), hang)
		if first == nil {
			first = s
			if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel}); err != nil {
				t.Fatal(err)
			}
			upload(t, s, "kb", "bomb.txt", "text that crashes the parser")
		}
		waitFor(t, fmt.Sprintf("claim %d", attempt), func() bool {
			var j Job
			for _, v := range rawPrefix(t, c.store, jobPrefix) {
				_ = json.Unmarshal([]byte(v), &j)
			}
			return j.Attempts == attempt && j.Stage == StageParse
		})
		if err := s.Halt(); err != nil { // the node dies: its lease stays
			t.Fatal(err)
		}
		c.clock.advance(2 * time.Minute)
	}
	c.node(t, "survivor", nil)
	waitFor(t, "the document to fail", func() bool { return docStatus(t, first, "kb", "bomb.txt").Status == StatusFailed })
	if d := docStatus(t, first, "kb", "bomb.txt"); !strings.Contains(d.StatusMessage, "interrupted 3 times while parsing") {
		t.Fatalf("status message %q", d.StatusMessage)
	}
	if n := jobsLeft(t, c.store); n != 0 {
		t.Fatalf("%d jobs left", n)
	}
}

// TestSweepIsASingleton: the upload sweep runs under a cluster lock; a node
// skips the round while another holds it and sweeps once it is free.
func TestSweepIsASingleton(t *testing.T) { onStores(t, testSweepIsASingleton) }

func testSweepIsASingleton(t *testing.T, c *testCluster) {
	a := c.node(t, "a", nil)
	ctx := context.Background()
	m, err := a.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel})
	if err != nil {
		t.Fatal(err)
	}
	orphan := blobID(m.ID, newVersionID(c.clock.now()))
	putBlob(t, a, orphan)
	c.clock.advance(3 * time.Hour)
	release, ok, err := c.cluster("other").TryLock(ctx, sweepLock)
	if err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	if ran, err := a.sweep(ctx); ran || err != nil {
		t.Fatalf("sweep while another node holds the lock: ran %v, %v", ran, err)
	}
	if got := blobs(t, a); len(got) != 1 {
		t.Fatalf("blobs %v: the skipped round must not sweep", got)
	}
	release()
	if ran, err := a.sweep(ctx); !ran || err != nil {
		t.Fatalf("sweep with the lock free: ran %v, %v", ran, err)
	}
	if got := blobs(t, a); len(got) != 0 {
		t.Fatalf("blobs %v: the orphan must be swept", got)
	}
}

// onStores runs fn on Badger and on PostgreSQL (skipped without its
// binaries outside CI).
func onStores(t *testing.T, fn func(t *testing.T, c *testCluster)) {
	t.Run("badger", func(t *testing.T) { fn(t, newTestCluster(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, newPGCluster(t)) })
}

// TestHeartbeat: the holder's heartbeat extends its lease while it holds
// the job, and cancels the job's work with errLeaseLost once another node
// has taken it over.
func TestHeartbeat(t *testing.T) { onStores(t, testHeartbeat) }

func testHeartbeat(t *testing.T, c *testCluster) {
	a := c.node(t, "a", func(cfg *Config) { cfg.Workers = 1; cfg.IdleWait = time.Hour; cfg.LeaseTTL = 30 * time.Millisecond })
	a.ingest.take("j1")
	ctx := context.Background()
	if err := c.store.Update(ctx, func(tx engine.Tx) error {
		return putJob(tx, &Job{ID: "j1", Kind: JobPurge, State: JobQueued})
	}); err != nil {
		t.Fatal(err)
	}
	j, ok, err := a.claim(ctx, "j1")
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	stored := func() Job {
		var cur Job
		if err := c.store.View(ctx, func(tx engine.Tx) error { return tx.Get(jobKey("j1"), &cur) }); err != nil {
			t.Fatal(err)
		}
		return cur
	}
	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	go func() { defer close(done); a.heartbeat(jctx, j, cancel) }()
	c.clock.advance(time.Hour)
	waitFor(t, "a renewed lease", func() bool { return stored().LeaseUntil.After(c.clock.now()) })

	// Another node takes the job over.
	if err := c.store.Update(ctx, func(tx engine.Tx) error {
		cur := stored()
		cur.Claim, cur.Node = cur.Claim+1, "b"
		return putJob(tx, &cur)
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the heartbeat went on after the takeover")
	}
	if !errors.Is(context.Cause(jctx), errLeaseLost) {
		t.Fatalf("job context ended with %v, want the lease lost", context.Cause(jctx))
	}
	if cur := stored(); cur.Node != "b" {
		t.Fatalf("the old holder's heartbeat wrote the job: %+v", cur)
	}
}
