package index

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/index/internal/memstore"
)

// blockedAdd starts an Add on mem whose write check holds its transaction
// until release is closed, and returns when the check is running: Add calls
// made meanwhile queue behind it.
func blockedAdd(t *testing.T, m *Manager, mem string, chunks []engine.IndexedChunk) (release func(), done <-chan error) {
	t.Helper()
	entered, hold := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ctx := engine.WithWriteCheck(context.Background(), func(engine.Tx) error {
		once.Do(func() { close(entered) })
		<-hold
		return nil
	})
	errc := make(chan error, 1)
	go func() { errc <- m.Add(ctx, mem, chunks) }()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first Add never reached its write")
	}
	return func() { close(hold) }, errc
}

// waitQueued waits until n Add calls wait in mem's queue.
func waitQueued(t *testing.T, m *Manager, mem string, n int) {
	t.Helper()
	mi, err := m.mem(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mi.adds.mu.Lock()
		got := len(mi.adds.pending)
		mi.adds.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", got, n)
		}
	}
}

func wordChunks(vs [][]float32, from int) []engine.IndexedChunk {
	out := chunksOf(vs, from)
	for i := range out {
		out[i].Text = fmt.Sprintf("chunk word%d shared", from+i)
	}
	return out
}

func storedSeq(m *Manager, mem string) uint64 {
	mi, _ := m.mem(context.Background(), mem)
	mi.mu.Lock()
	defer mi.mu.Unlock()
	return mi.seq
}

// TestAddGroupsOverlappingCalls: Add calls that arrive while another is
// being applied are applied together, as one stored change (one vector
// transaction, one keyword batch), and every chunk of every call is then
// searchable by vector and by keyword.
func TestAddGroupsOverlappingCalls(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, memstore.New(), t.TempDir(), Options{})
	defer m.Close()
	vs := clustered(40, 8, 4, 3)
	release, first := blockedAdd(t, m, "mem", wordChunks(vs[:10], 0))
	errs := make(chan error, 3)
	for i := 1; i <= 3; i++ {
		go func() { errs <- m.Add(ctx, "mem", wordChunks(vs[10*i:10*i+10], 10*i)) }()
	}
	waitQueued(t, m, "mem", 3)
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// One change for the first call, one for the group of three.
	if seq := storedSeq(m, "mem"); seq != 2 {
		t.Fatalf("stored changes: %d, want 2 (the three queued calls applied together)", seq)
	}
	ids := make([]string, 40)
	for i := range ids {
		ids[i] = chunkID(i)
	}
	has, err := m.HasVectors(ctx, "mem", ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range has {
		if !ok {
			t.Fatalf("%s has no vector", ids[i])
		}
		hits, err := m.SearchKeyword(ctx, "mem", fmt.Sprintf("word%d", i), 1, nil)
		if err != nil || len(hits) != 1 || hits[0].ID != ids[i] {
			t.Fatalf("keyword word%d: %v %v", i, hits, err)
		}
	}
	if s := memStats(t, m, "mem"); s.Vectors != 40 {
		t.Fatalf("stats: %+v", s)
	}
}

// TestAddGroupFailureIsPerCall: a group that cannot be applied is applied
// call by call, so the call with a wrong dimension and the call whose write
// check refuses (an ingestion job that lost its lease) fail alone, and the
// other call's chunks are indexed.
func TestAddGroupFailureIsPerCall(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, memstore.New(), t.TempDir(), Options{})
	defer m.Close()
	vs := clustered(30, 8, 4, 3)
	release, first := blockedAdd(t, m, "mem", wordChunks(vs[:10], 0))
	lost := errors.New("lease lost")
	fenced := engine.WithWriteCheck(ctx, func(engine.Tx) error { return lost })
	type result struct {
		name string
		err  error
	}
	res := make(chan result, 3)
	go func() { res <- result{"good", m.Add(ctx, "mem", wordChunks(vs[10:20], 10))} }()
	waitQueued(t, m, "mem", 1)
	go func() {
		res <- result{"dimension", m.Add(ctx, "mem", []engine.IndexedChunk{{ID: "bad", Vector: []float32{1, 2}, Text: "baddim"}})}
	}()
	waitQueued(t, m, "mem", 2)
	go func() { res <- result{"fenced", m.Add(fenced, "mem", wordChunks(vs[20:30], 20))} }()
	waitQueued(t, m, "mem", 3)
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	got := map[string]error{}
	for i := 0; i < 3; i++ {
		r := <-res
		got[r.name] = r.err
	}
	if got["good"] != nil || engine.ErrorCode(got["dimension"]) != engine.CodeBadRequest || !errors.Is(got["fenced"], lost) {
		t.Fatalf("results: %v", got)
	}
	has, err := m.HasVectors(ctx, "mem", []string{chunkID(15), chunkID(25), "bad"})
	if err != nil || !has[0] || has[1] || has[2] {
		t.Fatalf("vectors after the group: %v %v", has, err)
	}
	if hits, _ := m.SearchKeyword(ctx, "mem", "baddim", 1, nil); len(hits) != 0 {
		t.Fatalf("the refused call's text is indexed: %v", hits)
	}
}
