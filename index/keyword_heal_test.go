package index

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index/internal/memstore"
)

// textSource is an engine.ChunkSource over a map, standing in for the
// memory engine's chunk records.
type textSource struct {
	mu    sync.Mutex
	texts map[string]map[string]string // memory -> chunk id -> text
	scans int
}

func (s *textSource) put(mem string, chunks []engine.IndexedChunk) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.texts == nil {
		s.texts = map[string]map[string]string{}
	}
	if s.texts[mem] == nil {
		s.texts[mem] = map[string]string{}
	}
	for _, c := range chunks {
		s.texts[mem][c.ID] = c.Text
	}
}

func (s *textSource) ScanChunkTexts(ctx context.Context, mem string, fn func(id, text string) error) error {
	s.mu.Lock()
	s.scans++
	var ids []string
	for id := range s.texts[mem] {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	texts := s.texts[mem]
	s.mu.Unlock()
	for _, id := range ids {
		if err := fn(id, texts[id]); err == engine.ErrStopScan {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

func textChunks(from int, texts ...string) []engine.IndexedChunk {
	out := make([]engine.IndexedChunk, len(texts))
	for i, s := range texts {
		out[i] = engine.IndexedChunk{ID: chunkID(from + i), Text: s}
	}
	return out
}

// addBoth stores the chunks in the source and then adds them to the
// index, as the engine does: it asks the index which chunks it has (which
// loads the memory) before it writes chunk records, then adds them.
func addBoth(t *testing.T, m *Manager, src *textSource, mem string, chunks []engine.IndexedChunk) {
	t.Helper()
	if _, err := m.HasVectors(context.Background(), mem, nil); err != nil {
		t.Fatal(err)
	}
	src.put(mem, chunks)
	if err := m.Add(context.Background(), mem, chunks); err != nil {
		t.Fatal(err)
	}
}

func keywordIDs(t *testing.T, m *Manager, mem, query string) []string {
	t.Helper()
	hits, err := m.SearchKeyword(context.Background(), mem, query, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	sort.Strings(ids)
	return ids
}

func withSource(t *testing.T, store engine.Store, dir string, src *textSource) *Manager {
	t.Helper()
	m := newManager(t, store, dir, Options{})
	if src != nil {
		m.SetChunkSource(src)
	}
	return m
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKeywordIndexHeals covers every way a Bleve index can fall behind the
// store: gone (a restore from a backup, which holds only the store), a lost
// last batch (a kill before Bleve persisted it), unreadable files, and data
// written before sequence numbers existed.
func TestKeywordIndexHeals(t *testing.T) {
	ctx := context.Background()
	vec := func(c []engine.IndexedChunk) []engine.IndexedChunk {
		for i := range c {
			c[i].Vector = []float32{float32(i + 1), 1}
		}
		return c
	}

	t.Run("missing after restore", func(t *testing.T) {
		store, src := memstore.New(), &textSource{}
		m := withSource(t, store, t.TempDir(), src)
		addBoth(t, m, src, "mem", vec(textChunks(0, "badger stores keys", "bleve ranks words")))
		m.Close()
		// The store comes back, the Bleve directory does not.
		m = withSource(t, store, t.TempDir(), src)
		defer m.Close()
		if got := keywordIDs(t, m, "mem", "ranks"); len(got) != 1 || got[0] != chunkID(1) {
			t.Fatalf("after restore: %v", got)
		}
		if s := memStats(t, m, "mem"); !strings.Contains(s.Load.KeywordRebuilt, "missing") || s.KeywordDocs != 2 || s.Vectors != 2 {
			t.Fatalf("stats: %+v", s)
		}
	})

	t.Run("lost last batch", func(t *testing.T) {
		store, src, dir := memstore.New(), &textSource{}, t.TempDir()
		m := withSource(t, store, dir, src)
		addBoth(t, m, src, "mem", textChunks(0, "first chunk about otters"))
		m.Close()
		before := t.TempDir()
		copyDir(t, dir, before)
		m = withSource(t, store, dir, src)
		addBoth(t, m, src, "mem", textChunks(1, "second chunk about beavers"))
		m.Remove(ctx, "mem", []string{chunkID(0)})
		delete(src.texts["mem"], chunkID(0))
		m.Close()
		// The Bleve files go back to before the last two changes, as if
		// the process died before Bleve persisted them.
		os.RemoveAll(dir)
		copyDir(t, before, dir)
		m = withSource(t, store, dir, src)
		defer m.Close()
		if got := keywordIDs(t, m, "mem", "beavers otters"); len(got) != 1 || got[0] != chunkID(1) {
			t.Fatalf("after a lost batch: %v", got)
		}
		if s := memStats(t, m, "mem"); !strings.Contains(s.Load.KeywordRebuilt, "at change 1, the store at 3") {
			t.Fatalf("stats: %+v", s.Load)
		}
		// Healed indexes keep counting: a later restart uses it as is.
		m.Close()
		m = withSource(t, store, dir, src)
		if got := keywordIDs(t, m, "mem", "beavers"); len(got) != 1 {
			t.Fatalf("after a clean restart: %v", got)
		}
		if s := memStats(t, m, "mem"); s.Load.KeywordRebuilt != "" {
			t.Fatalf("rebuilt again: %+v", s.Load)
		}
	})

	t.Run("kill between the store and Bleve", func(t *testing.T) {
		store, src, dir := memstore.New(), &textSource{}, t.TempDir()
		m := withSource(t, store, dir, src)
		addBoth(t, m, src, "mem", vec(textChunks(0, "ibis probe mud")))
		if err := m.Flush(ctx); err != nil { // the first change reaches Bleve (kwBuffer)
			t.Fatal(err)
		}
		// What Add commits before it writes to Bleve, then nothing more:
		// the vector and the keyword number in one store transaction.
		late := vec(textChunks(1, "spoonbills sweep"))
		src.put("mem", late)
		mi, _ := m.mem(ctx, "mem")
		mi.mu.Lock()
		err := m.writeVectors(ctx, mi, []string{late[0].ID}, map[string][]float32{late[0].ID: {0.6, 0.8}}, nil, mi.kwSeq+1)
		mi.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		// The kill: Bleve's files stay as they are, no graph snapshot.
		m.setKeyword(mi, nil)
		m = withSource(t, store, dir, src)
		defer m.Close()
		if got := keywordIDs(t, m, "mem", "spoonbills ibis"); len(got) != 2 {
			t.Fatalf("after the kill: %v", got)
		}
		if s := memStats(t, m, "mem"); s.Vectors != 2 || !strings.Contains(s.Load.KeywordRebuilt, "at change 1, the store at 2") {
			t.Fatalf("stats: %+v", s)
		}
	})

	t.Run("unreadable", func(t *testing.T) {
		store, src, dir := memstore.New(), &textSource{}, t.TempDir()
		m := withSource(t, store, dir, src)
		addBoth(t, m, src, "mem", textChunks(0, "walrus tusks"))
		m.Close()
		if err := os.WriteFile(filepath.Join(dir, "mem", "index_meta.json"), []byte("{garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
		m = withSource(t, store, dir, src)
		defer m.Close()
		if got := keywordIDs(t, m, "mem", "walrus"); len(got) != 1 {
			t.Fatalf("after corruption: %v", got)
		}
		if s := memStats(t, m, "mem"); !strings.Contains(s.Load.KeywordRebuilt, "could not be opened") {
			t.Fatalf("stats: %+v", s.Load)
		}
	})

	t.Run("written before sequence numbers", func(t *testing.T) {
		store, src, dir := memstore.New(), &textSource{}, t.TempDir()
		m := withSource(t, store, dir, src)
		addBoth(t, m, src, "same", textChunks(0, "puffins nest", "gannets dive"))
		addBoth(t, m, src, "short", textChunks(0, "herons wait"))
		m.Close()
		// Old data: no numbers anywhere; "short" has a chunk Bleve never got.
		src.put("short", textChunks(1, "egrets wade"))
		for _, mem := range []string{"same", "short"} {
			store.Update(ctx, func(tx engine.Tx) error { return tx.Delete(kwSeqKey(mem)) })
		}
		m = withSource(t, store, dir, src)
		defer m.Close()
		if got := keywordIDs(t, m, "same", "puffins gannets"); len(got) != 2 {
			t.Fatalf("same: %v", got)
		}
		if got := keywordIDs(t, m, "short", "egrets"); len(got) != 1 {
			t.Fatalf("short: %v", got)
		}
		if s := memStats(t, m, "same"); s.Load.KeywordRebuilt != "" {
			t.Fatalf("an index that matches the store was rebuilt: %+v", s.Load)
		}
		if s := memStats(t, m, "short"); !strings.Contains(s.Load.KeywordRebuilt, "holds 1 chunks, the store 2") {
			t.Fatalf("short: %+v", s.Load)
		}
		var n uint64
		store.View(ctx, func(tx engine.Tx) (err error) { n, err = getU64(tx, kwSeqKey("same")); return err })
		if n != 1 {
			t.Fatalf("numbering did not start: %d", n)
		}
	})

	t.Run("no chunk source", func(t *testing.T) {
		store, src := memstore.New(), &textSource{}
		m := withSource(t, store, t.TempDir(), src)
		addBoth(t, m, src, "mem", textChunks(0, "lonely chunk"))
		m.Close()
		m = withSource(t, store, t.TempDir(), nil)
		defer m.Close()
		if got := keywordIDs(t, m, "mem", "lonely"); len(got) != 0 {
			t.Fatalf("without a source: %v", got)
		}
	})

	t.Run("stale after a failed change", func(t *testing.T) {
		store, src := memstore.New(), &textSource{}
		m := withSource(t, store, t.TempDir(), src)
		defer m.Close()
		addBoth(t, m, src, "mem", textChunks(0, "kestrels hover"))
		mi, _ := m.mem(ctx, "mem")
		mi.kwStale = true                              // as after a Bleve write error
		src.put("mem", textChunks(1, "merlins chase")) // a record whose Add failed
		addBoth(t, m, src, "mem", textChunks(2, "hobbies hunt"))
		if got := keywordIDs(t, m, "mem", "kestrels merlins hobbies"); len(got) != 3 {
			t.Fatalf("after the rebuild: %v", got)
		}
	})

	t.Run("nothing to index", func(t *testing.T) {
		store, src := memstore.New(), &textSource{}
		m := withSource(t, store, t.TempDir(), src)
		addBoth(t, m, src, "mem", textChunks(0, "gone soon"))
		m.Remove(ctx, "mem", []string{chunkID(0)})
		src.texts["mem"] = nil
		m.Close()
		m = withSource(t, store, t.TempDir(), src)
		defer m.Close()
		if got := keywordIDs(t, m, "mem", "gone"); len(got) != 0 {
			t.Fatalf("%v", got)
		}
		if store.Len(kwSeqKey("mem")) != 0 {
			t.Fatal("an empty rebuild leaves no sequence number behind")
		}
		scans := src.scans
		m.Close()
		m = withSource(t, store, t.TempDir(), src)
		defer m.Close()
		keywordIDs(t, m, "mem", "gone")
		if s := memStats(t, m, "mem"); s.Load.KeywordRebuilt != "" || src.scans != scans+1 {
			t.Fatalf("an empty memory is rebuilt on every load: %+v, %d scans", s.Load, src.scans-scans)
		}
	})
}
