package index

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index/internal/memstore"
)

// withVec gives each chunk a 2-d vector.
func withVec(c []engine.IndexedChunk) []engine.IndexedChunk {
	for i := range c {
		c[i].Vector = []float32{float32(i + 1), 1}
	}
	return c
}

// onBleve runs read on the memory's open keyword index under its lock and
// returns what read returns (0 when the index is not open).
func onBleve(t *testing.T, m *Manager, mem string, read func(kw *keywordIndex) uint64) uint64 {
	t.Helper()
	mi, err := m.mem(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	mi.kwMu.Lock()
	defer mi.kwMu.Unlock()
	if mi.kw == nil {
		return 0
	}
	return read(mi.kw)
}

// bleveBatches is how many batches the memory's Bleve index has applied
// since it was opened (scorch's TotBatches).
func bleveBatches(t *testing.T, m *Manager, mem string) uint64 {
	t.Helper()
	return onBleve(t, m, mem, func(kw *keywordIndex) uint64 {
		st, _ := kw.idx.StatsMap()["index"].(map[string]interface{})
		n, ok := st["TotBatches"].(uint64)
		if !ok {
			t.Fatalf("no TotBatches in %v", st)
		}
		return n
	})
}

// bleveDocs is how many documents the memory's Bleve index holds, without
// writing the buffer first.
func bleveDocs(t *testing.T, m *Manager, mem string) uint64 {
	t.Helper()
	return onBleve(t, m, mem, (*keywordIndex).count)
}

// TestKeywordBufferBatchesAdds: the texts of sequential Add calls reach
// Bleve in one batch, written before a keyword search, which finds them
// all; a removal after buffered texts applies after them.
func TestKeywordBufferBatchesAdds(t *testing.T) {
	ctx := context.Background()
	store, src, dir := memstore.New(), &textSource{}, t.TempDir()
	m := withSource(t, store, dir, src)
	defer m.Close()
	addBoth(t, m, src, "mem", withVec(textChunks(0, "heron0 wades")))
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	base := bleveBatches(t, m, "mem")
	for i := 1; i < 5; i++ {
		addBoth(t, m, src, "mem", withVec(textChunks(i, fmt.Sprintf("heron%d wades", i))))
	}
	if n := bleveBatches(t, m, "mem") - base; n != 0 {
		t.Fatalf("%d Bleve batches before any read, want 0 (buffered)", n)
	}
	if got := keywordIDs(t, m, "mem", "wades"); len(got) != 5 {
		t.Fatalf("search after buffered adds: %v", got)
	}
	if n := bleveBatches(t, m, "mem") - base; n != 1 {
		t.Fatalf("%d Bleve batches for 4 adds, want 1", n)
	}
	addBoth(t, m, src, "mem", withVec(textChunks(5, "egret wades")))
	if err := m.Remove(ctx, "mem", []string{chunkID(5), chunkID(0)}); err != nil {
		t.Fatal(err)
	}
	if got := keywordIDs(t, m, "mem", "wades"); len(got) != 4 || got[0] != chunkID(1) {
		t.Fatalf("after removing a buffered and a written chunk: %v", got)
	}
	if s := memStats(t, m, "mem"); s.KeywordDocs != 4 {
		t.Fatalf("stats: %+v", s)
	}
}

// TestKeywordBufferWrittenLater: without reads, buffered texts reach Bleve
// after kwBufferDelay, and Close writes them, so a clean restart needs no
// rebuild.
func TestKeywordBufferWrittenLater(t *testing.T) {
	store, src, dir := memstore.New(), &textSource{}, t.TempDir()
	m := withSource(t, store, dir, src)
	addBoth(t, m, src, "mem", withVec(textChunks(0, "kingfisher dives")))
	if n := bleveDocs(t, m, "mem"); n != 0 {
		t.Fatalf("%d documents in Bleve at once, want 0 (buffered)", n)
	}
	for deadline := time.Now().Add(20 * kwBufferDelay); bleveDocs(t, m, "mem") != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the buffered text never reached Bleve")
		}
	}
	addBoth(t, m, src, "mem", withVec(textChunks(1, "kingfisher perches")))
	m.Close()
	m = withSource(t, store, dir, src)
	defer m.Close()
	if got := keywordIDs(t, m, "mem", "kingfisher"); len(got) != 2 {
		t.Fatalf("after a clean restart: %v", got)
	}
	if s := memStats(t, m, "mem"); s.Load.KeywordRebuilt != "" {
		t.Fatalf("rebuilt after a clean restart: %+v", s.Load)
	}
}

// TestKeywordBufferLostInCrash: texts still buffered when the process dies
// are restored by the next load, which finds the Bleve index behind the
// store and rebuilds it from the chunk texts.
func TestKeywordBufferLostInCrash(t *testing.T) {
	store, src, dir := memstore.New(), &textSource{}, t.TempDir()
	m := withSource(t, store, dir, src)
	addBoth(t, m, src, "mem", withVec(textChunks(0, "plover runs")))
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	addBoth(t, m, src, "mem", withVec(textChunks(1, "plover nests")))
	// The crash: Bleve's files stay as they are, the buffer is lost.
	mi, _ := m.mem(context.Background(), "mem")
	mi.discardKeyword()
	m.setKeyword(mi, nil)
	m = withSource(t, store, dir, src)
	defer m.Close()
	if got := keywordIDs(t, m, "mem", "plover"); len(got) != 2 {
		t.Fatalf("after the crash: %v", got)
	}
	if s := memStats(t, m, "mem"); s.Load.KeywordRebuilt == "" {
		t.Fatalf("not rebuilt: %+v", s.Load)
	}
}

// TestKeywordBufferFullIsWritten: a full buffer is written without a read
// or the timer, while later changes go on being buffered.
func TestKeywordBufferFullIsWritten(t *testing.T) {
	store, src, dir := memstore.New(), &textSource{}, t.TempDir()
	m := withSource(t, store, dir, src)
	defer m.Close()
	texts := make([]string, kwBufferChunks)
	for i := range texts {
		texts[i] = fmt.Sprintf("stint%d feeds", i)
	}
	addBoth(t, m, src, "mem", withVec(textChunks(0, texts...)))
	mi, _ := m.mem(context.Background(), "mem")
	mi.kwBuf.mu.Lock()
	armed := mi.kwBuf.timer != nil
	mi.kwBuf.mu.Unlock()
	if armed {
		t.Fatal("a full buffer waits for the timer")
	}
	for deadline := time.Now().Add(30 * time.Second); bleveDocs(t, m, "mem") != kwBufferChunks; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d documents written", bleveDocs(t, m, "mem"), kwBufferChunks)
		}
	}
	addBoth(t, m, src, "mem", withVec(textChunks(kwBufferChunks, "stint feeds sandpiper")))
	if got := keywordIDs(t, m, "mem", "sandpiper"); len(got) != 1 {
		t.Fatalf("the change after the full buffer: %v", got)
	}
}

// TestKeywordBufferConcurrent: Adds, removals and searches from several
// goroutines leave the keyword index with exactly the chunks not removed.
func TestKeywordBufferConcurrent(t *testing.T) {
	ctx := context.Background()
	store, src, dir := memstore.New(), &textSource{}, t.TempDir()
	m := withSource(t, store, dir, src)
	defer m.Close()
	if _, err := m.HasVectors(ctx, "mem", nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				n := g*100 + i
				c := withVec(textChunks(n, fmt.Sprintf("tern%d calls", n)))
				src.put("mem", c)
				if err := m.Add(ctx, "mem", c); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					if err := m.Remove(ctx, "mem", []string{chunkID(n)}); err != nil {
						t.Error(err)
						return
					}
				}
				if _, err := m.SearchKeyword(ctx, "mem", "calls", 5, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := keywordIDs(t, m, "mem", "calls"); len(got) != 10 { // the top 10 of 80
		t.Fatalf("search: %v", got)
	}
	if s := memStats(t, m, "mem"); s.KeywordDocs != 80 {
		t.Fatalf("keyword documents: %d, want 80 (120 added, 40 removed)", s.KeywordDocs)
	}
}
