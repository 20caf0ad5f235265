package index

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/rank"
	"github.com/hearth-dev/hearth/index/internal/memstore"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newManager opens a Manager over store with a small snapshot part size, so
// snapshots span many parts and transactions, and no background loop.
func newManager(t *testing.T, store engine.Store, dir string, opts Options) *Manager {
	t.Helper()
	opts.SnapshotInterval = -1
	opts.Logger = quietLogger()
	if opts.HNSW.Seed == 0 {
		opts.HNSW = HNSWConfig{M: 12, EfConstruction: 100, Seed: 1}
	}
	m := NewManager(store, dir, opts)
	m.partSize = 16 << 10
	if err := m.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m
}

func chunksOf(vs [][]float32, from int) []engine.IndexedChunk {
	out := make([]engine.IndexedChunk, len(vs))
	for i, v := range vs {
		out[i] = engine.IndexedChunk{ID: chunkID(from + i), Vector: v}
	}
	return out
}

func memStats(t *testing.T, m *Manager, mem string) MemoryStats {
	t.Helper()
	for _, s := range m.Stats() {
		if s.MemoryID == mem {
			return s
		}
	}
	t.Fatalf("no stats for %s", mem)
	return MemoryStats{}
}

func TestManagerVectorSearchAndThreshold(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, memstore.New(), t.TempDir(), Options{ExactThreshold: 500})
	defer m.Close()
	vs := clustered(1200, 16, 12, 5)
	if err := m.Add(ctx, "small", chunksOf(vs[:300], 0)); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(ctx, "big", chunksOf(vs, 0)); err != nil {
		t.Fatal(err)
	}
	for _, mem := range []string{"small", "big"} {
		hits, err := m.SearchVector(ctx, mem, vs[7], 5, nil)
		if err != nil || len(hits) != 5 || hits[0].ID != chunkID(7) {
			t.Fatalf("%s: %v %v", mem, hits, err)
		}
	}
	if hits, err := m.SearchVector(ctx, "empty", vs[0], 5, nil); err != nil || len(hits) != 0 {
		t.Fatalf("unknown memory: %v %v", hits, err)
	}
	if _, err := m.SearchVector(ctx, "big", []float32{1, 2}, 5, nil); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("wrong dimension: %v", err)
	}
	if err := m.Add(ctx, "big", []engine.IndexedChunk{{ID: "x", Vector: []float32{1}}}); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("wrong dimension on add: %v", err)
	}
	if err := m.Add(ctx, "../etc", nil); engine.ErrorCode(err) != engine.CodeBadRequest {
		t.Fatalf("bad memory id: %v", err)
	}
	if err := m.Remove(ctx, "big", []string{chunkID(7), "missing"}); err != nil {
		t.Fatal(err)
	}
	hits, _ := m.SearchVector(ctx, "big", vs[7], 5, nil)
	if hits[0].ID == chunkID(7) {
		t.Fatal("removed chunk returned")
	}
	if s := memStats(t, m, "big"); s.Vectors != 1199 || s.Tombstones != 1 || s.Dim != 16 || s.Bytes <= 0 {
		t.Fatalf("stats: %+v", s)
	}
}

// TestManagerPersistence covers a clean restart (snapshot, no rebuild), a
// restart after changes that were never snapshotted (replay), and a restart
// with no snapshot at all (full rebuild from the stored vectors).
func TestManagerPersistence(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	dir := t.TempDir()
	vs := clustered(2000, 24, 20, 6)

	m := newManager(t, store, dir, Options{})
	if err := m.Add(ctx, "mem", chunksOf(vs[:1500], 0)); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(ctx, "mem", []string{chunkID(1), chunkID(2)}); err != nil {
		t.Fatal(err)
	}
	want, _ := m.SearchVector(ctx, "mem", vs[10], 10, nil)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if store.Len(snapPrefix("mem")) < 4 {
		t.Fatalf("snapshot has %d parts, want several", store.Len(snapPrefix("mem")))
	}

	// Clean restart: the graph comes from the snapshot, nothing is replayed.
	m = newManager(t, store, dir, Options{})
	got, err := m.SearchVector(ctx, "mem", vs[10], 10, nil)
	if err != nil || !equalHits(got, want) {
		t.Fatalf("after restart: %v %v, want %v", got, err, want)
	}
	s := memStats(t, m, "mem")
	if !s.Load.FromSnapshot || s.Load.Replayed != 0 || s.Load.Removed != 0 || s.Vectors != 1498 {
		t.Fatalf("clean restart: %+v", s)
	}
	// Changes after the snapshot, then a crash (no Close, no Flush).
	if err := m.Add(ctx, "mem", chunksOf(vs[1500:], 1500)); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(ctx, "mem", []string{chunkID(3)}); err != nil {
		t.Fatal(err)
	}
	m = newManager(t, store, dir, Options{})
	s = statsAfterSearch(t, m, "mem", vs[1700])
	if !s.Load.FromSnapshot || s.Load.Replayed != 500 || s.Load.Removed != 1 || s.Vectors != 1997 {
		t.Fatalf("stale snapshot: %+v", s)
	}
	hits, _ := m.SearchVector(ctx, "mem", vs[1700], 1, nil)
	if hits[0].ID != chunkID(1700) {
		t.Fatalf("replayed vector not found: %v", hits)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// No snapshot: delete it and restart; everything is rebuilt.
	if err := store.Update(ctx, func(tx engine.Tx) error { return tx.Delete(manifestKey("mem")) }); err != nil {
		t.Fatal(err)
	}
	m = newManager(t, store, dir, Options{})
	s = statsAfterSearch(t, m, "mem", vs[5])
	if s.Load.FromSnapshot || s.Load.Replayed != 1997 || s.Vectors != 1997 {
		t.Fatalf("rebuild: %+v", s)
	}
	if n := store.Len(snapPrefix("mem")); n != 0 {
		t.Fatalf("%d orphan snapshot parts left", n)
	}
	m.Close()

	// A corrupted part fails the checksum and triggers a rebuild.
	store.Update(ctx, func(tx engine.Tx) error {
		var man manifest
		tx.Get(manifestKey("mem"), &man)
		b, _ := tx.GetRaw(partKey("mem", man.Gen, 1))
		b[100] ^= 0xff
		return tx.PutRaw(partKey("mem", man.Gen, 1), b)
	})
	m = newManager(t, store, dir, Options{})
	defer m.Close()
	s = statsAfterSearch(t, m, "mem", vs[5])
	if s.Load.FromSnapshot || s.Vectors != 1997 {
		t.Fatalf("corrupt snapshot: %+v", s)
	}
}

func statsAfterSearch(t *testing.T, m *Manager, mem string, q []float32) MemoryStats {
	t.Helper()
	if _, err := m.SearchVector(context.Background(), mem, q, 3, nil); err != nil {
		t.Fatal(err)
	}
	return memStats(t, m, mem)
}

func equalHits(a, b []engine.ChunkHit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return true
}

// TestManagerCrashDuringSnapshot fails the store half-way through a
// snapshot write: the previous snapshot must stay the valid one.
func TestManagerCrashDuringSnapshot(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	dir := t.TempDir()
	vs := clustered(1500, 24, 15, 7)
	m := newManager(t, store, dir, Options{})
	if err := m.Add(ctx, "mem", chunksOf(vs[:1000], 0)); err != nil {
		t.Fatal(err)
	}
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var first manifest
	store.View(ctx, func(tx engine.Tx) error { return tx.Get(manifestKey("mem"), &first) })
	if err := m.Add(ctx, "mem", chunksOf(vs[1000:], 1000)); err != nil {
		t.Fatal(err)
	}
	updates := 0
	crash := errors.New("simulated crash")
	store.FailUpdate = func() error {
		if updates++; updates > 2 {
			return crash
		}
		return nil
	}
	if err := m.Flush(ctx); !errors.Is(err, crash) {
		t.Fatalf("flush during crash: %v", err)
	}
	store.FailUpdate = nil
	if store.Len(genPrefix("mem", first.Gen+1)) == 0 {
		t.Fatal("the crashed snapshot wrote no parts; the test does not test anything")
	}
	var now manifest
	store.View(ctx, func(tx engine.Tx) error { return tx.Get(manifestKey("mem"), &now) })
	if now.Gen != first.Gen {
		t.Fatalf("manifest moved to gen %d during a failed snapshot", now.Gen)
	}

	m = newManager(t, store, dir, Options{})
	defer m.Close()
	s := statsAfterSearch(t, m, "mem", vs[1200])
	if !s.Load.FromSnapshot || s.Load.Replayed != 500 || s.Vectors != 1500 {
		t.Fatalf("after crash: %+v", s)
	}
	if n := store.Len(genPrefix("mem", first.Gen+1)); n != 0 {
		t.Fatalf("%d parts of the crashed snapshot left", n)
	}
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, want := store.Len(snapPrefix("mem")), store.Len(genPrefix("mem", first.Gen+1)); n != want || n == 0 {
		t.Fatalf("after a good snapshot: %d parts, %d in the new generation", n, want)
	}
}

func TestManagerDropMemory(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	dir := t.TempDir()
	m := newManager(t, store, dir, Options{})
	defer m.Close()
	vs := clustered(300, 8, 4, 8)
	chunks := chunksOf(vs, 0)
	for i := range chunks {
		chunks[i].Text = "chunk text number " + chunkID(i)
	}
	if err := m.Add(ctx, "gone", chunks); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(ctx, "kept", chunks[:10]); err != nil {
		t.Fatal(err)
	}
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.DropMemory(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if n := store.Len(memPrefix("gone")); n != 0 {
		t.Fatalf("%d keys left after drop", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
		t.Fatalf("bleve dir left: %v", err)
	}
	if hits, _ := m.SearchVector(ctx, "gone", vs[0], 5, nil); len(hits) != 0 {
		t.Fatalf("dropped memory still answers: %v", hits)
	}
	if hits, _ := m.SearchKeyword(ctx, "gone", "chunk", 5, nil); len(hits) != 0 {
		t.Fatalf("dropped memory still answers keywords: %v", hits)
	}
	if hits, _ := m.SearchVector(ctx, "kept", vs[0], 5, nil); len(hits) != 5 {
		t.Fatalf("other memory affected: %v", hits)
	}
	// An interrupted drop (marker left behind) is finished on next load.
	if err := m.Add(ctx, "half", chunks[:20]); err != nil {
		t.Fatal(err)
	}
	store.Update(ctx, func(tx engine.Tx) error { return tx.PutRaw(dropKey("half"), []byte{1}) })
	m2 := newManager(t, store, t.TempDir(), Options{})
	defer m2.Close()
	if hits, _ := m2.SearchVector(ctx, "half", vs[0], 5, nil); len(hits) != 0 {
		t.Fatalf("interrupted drop resurrected: %v", hits)
	}
	if n := store.Len(memPrefix("half")); n != 0 {
		t.Fatalf("%d keys left after finishing the drop", n)
	}
}

func TestManagerKeywordOnlyAndHybrid(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := newManager(t, memstore.New(), dir, Options{})
	texts := []string{
		"Badger is an embeddable key value store written in Go",
		"The HNSW graph gives approximate nearest neighbour search",
		"Reciprocal rank fusion merges a keyword ranking with a vector ranking",
		"Cats sleep most of the day in the sun",
		"Go routines and channels make concurrency simple",
	}
	var chunks []engine.IndexedChunk
	for i, s := range texts {
		chunks = append(chunks, engine.IndexedChunk{ID: chunkID(i), Text: s})
	}
	// Keyword-only (hearth:bm25): no vectors at all.
	if err := m.Add(ctx, "kw", chunks); err != nil {
		t.Fatal(err)
	}
	hits, err := m.SearchKeyword(ctx, "kw", "ranking fusion", 3, nil)
	if err != nil || len(hits) == 0 || hits[0].ID != chunkID(2) {
		t.Fatalf("keyword search: %v %v", hits, err)
	}
	// Stemming: "sleeping cat" finds "Cats sleep".
	if hits, _ := m.SearchKeyword(ctx, "kw", "sleeping cat", 3, nil); len(hits) == 0 || hits[0].ID != chunkID(3) {
		t.Fatalf("stemmed search: %v", hits)
	}
	// Filters apply to keyword hits too.
	hits, _ = m.SearchKeyword(ctx, "kw", "go", 5, func(id string) bool { return id != chunkID(0) })
	if len(hits) != 1 || hits[0].ID != chunkID(4) {
		t.Fatalf("filtered keyword search: %v", hits)
	}
	if hits, _ := m.SearchVector(ctx, "kw", []float32{1, 0}, 3, nil); len(hits) != 0 {
		t.Fatalf("keyword-only memory has vectors: %v", hits)
	}
	if err := m.Remove(ctx, "kw", []string{chunkID(2)}); err != nil {
		t.Fatal(err)
	}
	if hits, _ := m.SearchKeyword(ctx, "kw", "fusion", 3, nil); len(hits) != 0 {
		t.Fatalf("removed chunk still found: %v", hits)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	// The keyword index survives a restart.
	m = newManager(t, memstore.New(), dir, Options{})
	defer m.Close()
	if hits, _ := m.SearchKeyword(ctx, "kw", "badger", 3, nil); len(hits) != 1 || hits[0].ID != chunkID(0) {
		t.Fatalf("after restart: %v", hits)
	}
	if s := memStats(t, m, "kw"); s.KeywordDocs != 4 {
		t.Fatalf("stats: %+v", s)
	}
}

// TestHybridRanking: a chunk that is second in both rankings beats chunks
// that are first in one ranking and absent from the other.
func TestHybridRanking(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, memstore.New(), t.TempDir(), Options{})
	defer m.Close()
	chunks := []engine.IndexedChunk{
		{ID: "vec-only", Vector: []float32{1, 0, 0}, Text: "nothing relevant here"},
		{ID: "both", Vector: []float32{0.9, 0.3, 0}, Text: "the invoice total for the month of march was sent"},
		{ID: "kw-only", Vector: []float32{0, 0, 1}, Text: "invoice total"},
		{ID: "neither", Vector: []float32{0, 1, 0}, Text: "holiday pictures"},
	}
	if err := m.Add(ctx, "h", chunks); err != nil {
		t.Fatal(err)
	}
	vec, _ := m.SearchVector(ctx, "h", []float32{1, 0.1, 0}, 3, nil)
	kw, _ := m.SearchKeyword(ctx, "h", "invoice total", 3, nil)
	if len(vec) != 3 || vec[0].ID != "vec-only" || vec[1].ID != "both" || len(kw) != 2 || kw[0].ID != "kw-only" || kw[1].ID != "both" {
		t.Fatalf("unexpected inputs: vec %v kw %v", vec, kw)
	}
	fused := rank.FuseRRF(vec, kw, 1, 1, 0)
	if fused[0].ID != "both" {
		t.Fatalf("fused: %v", fused)
	}
	// Weights shift the balance: keyword weight 0 gives the vector order.
	if got := rank.FuseRRF(vec, kw, 1, 0, 60); got[0].ID != "vec-only" || got[1].ID != "both" {
		t.Fatalf("vector-weighted: %v", got)
	}
	if got := rank.FuseRRF(vec, kw, 0, 1, 60); got[0].ID != "kw-only" || got[1].ID != "both" {
		t.Fatalf("keyword-weighted: %v", got)
	}
}
