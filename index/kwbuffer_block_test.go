package index

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/index/internal/memstore"
)

// TestKeywordBatchDoesNotBlockAdd: while a full buffer is analysed and
// written to Bleve in the background, another Add on the same memory
// completes (ingestion workers go on instead of waiting for the batch),
// and the keyword index ends with both.
func TestKeywordBatchDoesNotBlockAdd(t *testing.T) {
	store, src, dir := memstore.New(), &textSource{}, t.TempDir()
	m := withSource(t, store, dir, src)
	defer m.Close()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hook := func() { once.Do(func() { close(entered); <-release }) }
	testBatchHook.Store(&hook)
	defer testBatchHook.Store(nil)
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) })

	texts := make([]string, kwBufferChunks)
	for i := range texts {
		texts[i] = fmt.Sprintf("plover%d runs", i)
	}
	addBoth(t, m, src, "mem", withVec(textChunks(0, texts...)))
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the full buffer was not written in the background")
	}
	done := make(chan error, 1)
	go func() {
		c := withVec(textChunks(kwBufferChunks, "plover dunlin"))
		src.put("mem", c)
		done <- m.Add(context.Background(), "mem", c)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Add waited for the keyword batch being written")
	}
	releaseOnce.Do(func() { close(release) })
	if got := keywordIDs(t, m, "mem", "dunlin"); len(got) != 1 {
		t.Fatalf("the Add made during the batch: %v", got)
	}
	if n := bleveDocs(t, m, "mem"); n != kwBufferChunks+1 {
		t.Fatalf("%d keyword documents, want %d", n, kwBufferChunks+1)
	}
}
