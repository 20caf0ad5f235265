package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/server/servertest"
)

// bigDoc is a document of n paragraphs of about 90 characters; with
// chunk_size 100 each is one chunk, and the gate's batches hold 4.
func bigDoc(n int, marker string, at int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		word := "paragraph"
		if i == at {
			word = marker
		}
		fmt.Fprintf(&b, "This is %s number %03d of the long document about memory engines and crashes.\n\n", word, i)
	}
	return []byte(b.String())
}

func TestCrashDuringIngestionResumes(t *testing.T) {
	dir := t.TempDir()
	gate := newGate("STOPHERE")
	ts := servertest.StartDir(t, dir, withEmbedder(gate))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "gate:x", "chunk_size": 100, "chunk_overlap": 0})
	upload(t, ts, key, "kb", "done.txt", "text/plain", []byte("an earlier document that is already completed"), nil)
	waitCompleted(t, ts, key, "kb", "done.txt")
	upload(t, ts, key, "kb", "big.txt", "text/plain", bigDoc(20, "STOPHERE", 9), nil)
	waitEntered(t, gate) // chunks 0-7 are stored, the batch of 8-11 hangs
	if d := findDoc(listDocs(t, ts, key, "kb"), "big.txt"); d.Status != "in_progress" {
		t.Fatalf("before the crash: %+v", d)
	}
	ts.Crash()
	before := gate.inputs.Load()

	ok := newGate("")
	ts = servertest.StartDir(t, dir, withEmbedder(ok))
	d := waitCompleted(t, ts, key, "kb", "big.txt")
	if d.Chunks != 20 {
		t.Fatalf("chunks %d, want 20", d.Chunks)
	}
	if n := ok.inputs.Load(); n != 12 {
		t.Fatalf("the restart embedded %d chunks, want the 12 not stored before the crash (%d were sent before)", n, before)
	}
	res := retrieve(t, ts, key, map[string]any{"query": "STOPHERE number 009", "memory": []map[string]any{{"name": "kb"}}, "topK": 1})
	if len(res) != 1 || !strings.Contains(res[0].Text, "STOPHERE") {
		t.Fatalf("retrieve after restart: %+v", res)
	}
	waitIdle(t, ts)
	if keys := storeKeys(t, ts, "chunk/", "vectors"); keys["chunk/"] != 21 || keys["vectors"] != 21 {
		t.Fatalf("records: %v", keys)
	}
}

func TestRepeatedCrashesFailTheDocument(t *testing.T) {
	dir := t.TempDir()
	gate := newGate("STOPHERE")
	key := servertest.AdminKey
	ts := servertest.StartDir(t, dir, withEmbedder(gate))
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "gate:x", "chunk_size": 100, "chunk_overlap": 0})
	upload(t, ts, key, "kb", "poison.txt", "text/plain", bigDoc(3, "STOPHERE", 0), nil)
	for i := 0; i < 3; i++ {
		waitEntered(t, gate)
		ts.Crash()
		ts = servertest.StartDir(t, dir, withEmbedder(gate))
	}
	d := waitDoc(t, ts, key, "kb", "poison.txt")
	if d.Status != "failed" || !strings.Contains(*d.StatusMessage, "interrupted 3 times") {
		t.Fatalf("after three crashes: %+v %v", d, d.StatusMessage)
	}
	ts.Stop()
	ts = servertest.StartDir(t, dir, withEmbedder(newGate("")))
	mustStatus(t, ts.Do("GET", "/v1/memory/kb/documents/poison.txt/embeddings/retry", key, nil), 200)
	waitCompleted(t, ts, key, "kb", "poison.txt")
}

func TestCleanShutdownRequeues(t *testing.T) {
	dir := t.TempDir()
	gate := newGate("STOPHERE")
	key := servertest.AdminKey
	ts := servertest.StartDir(t, dir, withEmbedder(gate))
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "gate:x", "chunk_size": 100, "chunk_overlap": 0})
	upload(t, ts, key, "kb", "a.txt", "text/plain", bigDoc(3, "STOPHERE", 0), nil)
	// Queued documents survive a restart too.
	waitEntered(t, gate)
	upload(t, ts, key, "kb", "b.txt", "text/plain", []byte("queued behind"), nil)
	upload(t, ts, key, "kb", "c.txt", "text/plain", []byte("queued behind as well"), nil)
	// Stop closes the workers; the interrupted job goes back to the queue
	// without counting as an attempt, however often it happens.
	for i := 0; i < 4; i++ {
		ts.Stop()
		ts = servertest.StartDir(t, dir, withEmbedder(gate), servertest.WithMemory(func(c *memory.Config) { c.Workers = 1 }))
		waitEntered(t, gate)
	}
	ts.Stop()
	ts = servertest.StartDir(t, dir, withEmbedder(newGate("")))
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		waitCompleted(t, ts, key, "kb", n)
	}
}
