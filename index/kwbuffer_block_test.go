package index

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
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

// TestKeywordSecondFullBufferInBackground: a buffer that fills while the
// previous one is being written waits for that write, then is written in
// the background like the first (the Add that filled it does not write it
// itself while holding the memory's lock), and both reach the index.
func TestKeywordSecondFullBufferInBackground(t *testing.T) {
	store, src, dir := memstore.New(), &textSource{}, t.TempDir()
	m := withSource(t, store, dir, src)
	defer m.Close()
	entered := []chan struct{}{make(chan struct{}), make(chan struct{})}
	release := []chan struct{}{make(chan struct{}), make(chan struct{})}
	var calls atomic.Int32
	hook := func() {
		if n := calls.Add(1) - 1; n < 2 {
			close(entered[n])
			<-release[n]
		}
	}
	testBatchHook.Store(&hook)
	defer testBatchHook.Store(nil)
	var once [2]sync.Once
	releaseBatch := func(n int) { once[n].Do(func() { close(release[n]) }) }
	defer releaseBatch(1)
	defer releaseBatch(0)
	wait := func(c chan struct{}, what string) {
		t.Helper()
		select {
		case <-c:
		case <-time.After(30 * time.Second):
			t.Fatal(what)
		}
	}
	full := func(from int) []string {
		texts := make([]string, kwBufferChunks)
		for i := range texts {
			texts[i] = fmt.Sprintf("godwit%d probes", from+i)
		}
		return texts
	}

	addBoth(t, m, src, "mem", withVec(textChunks(0, full(0)...)))
	wait(entered[0], "the first full buffer was not written in the background")
	done := make(chan error, 1)
	go func() {
		c := withVec(textChunks(kwBufferChunks, full(kwBufferChunks)...))
		src.put("mem", c)
		done <- m.Add(context.Background(), "mem", c)
	}()
	select {
	case err := <-done:
		t.Fatalf("the second full buffer did not wait for the first write (err %v)", err)
	case <-time.After(200 * time.Millisecond): // it waits; the check below is what must hold
	}
	releaseBatch(0)
	wait(entered[1], "the second full buffer was not written")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the Add that filled the second buffer wrote it itself")
	}
	releaseBatch(1)
	if got := keywordIDs(t, m, "mem", "probes"); len(got) != 10 {
		t.Fatalf("search: %v", got)
	}
	if n := bleveDocs(t, m, "mem"); n != 2*kwBufferChunks {
		t.Fatalf("%d keyword documents, want %d", n, 2*kwBufferChunks)
	}
}
