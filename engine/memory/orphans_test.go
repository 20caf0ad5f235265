package memory

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// testClock is a clock tests move forward.
type testClock struct {
	start  time.Time
	offset atomic.Int64
}

func newTestClock() *testClock               { return &testClock{start: time.Now()} }
func (c *testClock) now() time.Time          { return c.start.Add(time.Duration(c.offset.Load())) }
func (c *testClock) advance(d time.Duration) { c.offset.Add(int64(d)) }
func (c *testClock) adjust(cfg *Config)      { cfg.Now = c.now }
func putBlob(t *testing.T, s *Service, id string) {
	t.Helper()
	if _, err := s.store.PutBlob(context.Background(), id, strings.NewReader("orphan bytes")); err != nil {
		t.Fatal(err)
	}
}

func blobs(t *testing.T, s *Service) []string {
	t.Helper()
	ids, err := s.blobIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

// TestOrphanedBlobsAreSwept: blobs that no document or job references are
// deleted once they are older than the upload lifetime; referenced blobs,
// young ones (an upload in progress) and blobs of other owners stay.
func TestOrphanedBlobsAreSwept(t *testing.T) {
	clock := newTestClock()
	s := newTestService(t, clock.adjust)
	ctx := context.Background()
	m, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel})
	if err != nil {
		t.Fatal(err)
	}
	d := ingestDoc(t, s, "ann", "kb", "kept.txt", "a document that stays")
	kept := d.Current.Blob
	if _, ok := versionTime(d.Current.ID); !ok {
		t.Fatalf("version %q carries no time", d.Current.ID)
	}
	// A crash between storing the bytes and recording the document.
	crashed := blobID(m.ID, newVersionID(clock.now()))
	putBlob(t, s, crashed)
	// A write cut short: parts without the meta record.
	partial := blobID(m.ID, newVersionID(clock.now()))
	if err := s.store.Update(ctx, func(tx engine.Tx) error {
		return tx.PutRaw("blob/"+partial+"/p/00000000", []byte("half"))
	}); err != nil {
		t.Fatal(err)
	}
	// A version of an older release (no time in its id).
	legacy := blobID(m.ID, "v"+engine.RandomString(16))
	putBlob(t, s, legacy)
	// A purge job still owns this one.
	owned := blobID(m.ID, newVersionID(clock.now()))
	putBlob(t, s, owned)
	j := s.newJob(JobPurge, m, "gone.txt", &Version{ID: "x", Blob: owned})
	j.NotBefore = clock.now().Add(24 * time.Hour)
	if err := s.store.Update(ctx, func(tx engine.Tx) error { return putJob(tx, j) }); err != nil {
		t.Fatal(err)
	}
	// Not a memory blob.
	putBlob(t, s, "images/abc")

	n, err := s.sweepBlobs(ctx)
	if err != nil || n != 1 {
		t.Fatalf("first sweep: %d %v", n, err)
	}
	if got := blobs(t, s); slices.Contains(got, legacy) || !slices.Contains(got, crashed) || !slices.Contains(got, partial) {
		t.Fatalf("young orphans must stay, old-format ones go: %v", got)
	}
	clock.advance(2*time.Hour + time.Minute)
	n, err = s.sweepBlobs(ctx)
	if err != nil || n != 2 {
		t.Fatalf("second sweep: %d %v", n, err)
	}
	want := []string{"images/abc", kept, owned}
	slices.Sort(want)
	if got := blobs(t, s); !slices.Equal(got, want) {
		t.Fatalf("blobs %v, want %v", got, want)
	}
	if _, d, err := s.Document(ctx, "ann", "kb", "kept.txt"); err != nil || d.Status != StatusCompleted {
		t.Fatalf("document: %+v %v", d, err)
	}
}

// TestOrphanSweepOnOpenAndHourly: Open sweeps (a crash left an orphan
// behind), and the running service sweeps again every hour.
func TestOrphanSweepOnOpenAndHourly(t *testing.T) {
	clock := newTestClock()
	dir := t.TempDir()
	adjust := func(c *Config) { clock.adjust(c); c.IdleWait = 5 * time.Millisecond }
	s, stop := openService(t, dir, adjust)
	m, err := s.Create(context.Background(), "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel})
	if err != nil {
		t.Fatal(err)
	}
	old := blobID(m.ID, newVersionID(clock.now()))
	putBlob(t, s, old)
	stop()

	clock.advance(3 * time.Hour)
	s, stop = openService(t, dir, adjust)
	defer stop()
	if got := blobs(t, s); len(got) != 0 {
		t.Fatalf("Open left %v", got)
	}
	young := blobID(m.ID, newVersionID(clock.now()))
	putBlob(t, s, young)
	clock.advance(2*time.Hour + time.Minute) // past the upload lifetime, and an hour since the last sweep
	deadline := time.Now().Add(10 * time.Second)
	for len(blobs(t, s)) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the hourly sweep did not run: %v", blobs(t, s))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDeleteCrashLeavesNoOrphan: a document delete whose purge job was
// given up (interrupted too often) leaves its blob; the sweep takes it.
func TestDeleteCrashLeavesNoOrphan(t *testing.T) {
	clock := newTestClock()
	s := newTestService(t, clock.adjust)
	ctx := context.Background()
	if _, err := s.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel}); err != nil {
		t.Fatal(err)
	}
	d := ingestDoc(t, s, "ann", "kb", "a.txt", "soon deleted")
	// What a delete leaves when its purge never ran: no record, the blob.
	if err := s.store.Update(ctx, func(tx engine.Tx) error { return tx.Delete(docKey(d.MemoryID, "a.txt")) }); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.sweepBlobs(ctx); n != 0 {
		t.Fatal("a blob younger than the upload lifetime was deleted")
	}
	clock.advance(3 * time.Hour)
	if n, err := s.sweepBlobs(ctx); n != 1 || err != nil || len(blobs(t, s)) != 0 {
		t.Fatalf("sweep: %d %v, left %v", n, err, blobs(t, s))
	}
}
