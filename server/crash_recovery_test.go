package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestCrashRecoversIndexWithoutSnapshot: documents ingested by a server
// that never wrote an index snapshot (test servers snapshot only on close)
// and never flushed Badger's memtable are all found after a crash: the
// graph is rebuilt from the vector records replayed out of Badger's
// write-ahead log.
func TestCrashRecoversIndexWithoutSnapshot(t *testing.T) {
	dir := t.TempDir()
	key := servertest.AdminKey
	ts := servertest.StartDir(t, dir)
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	tokens := []string{"quokka", "narwhal", "axolotl", "pangolin"}
	for i, tok := range tokens {
		doc := fmt.Sprintf("This is document %d about the %s and nothing else of note.", i, tok)
		upload(t, ts, key, "kb", tok+".txt", "text/plain", []byte(doc), nil)
	}
	for _, tok := range tokens {
		waitCompleted(t, ts, key, "kb", tok+".txt")
	}
	waitIdle(t, ts)
	for _, st := range ts.Index.Stats() {
		if st.SnapshotBytes != 0 {
			t.Fatalf("the index wrote a snapshot before the crash (%d bytes): the test needs one that never did", st.SnapshotBytes)
		}
	}

	ts.Crash()
	// A clean close flushes the memtable into a table (.sst); after a
	// crash the writes are only in the write-ahead log (.mem).
	if ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst")); len(ssts) != 0 {
		t.Fatalf("the crash left tables %v: the store was closed, not crashed", ssts)
	}
	if mems, _ := filepath.Glob(filepath.Join(dir, "*.mem")); len(mems) == 0 {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("the crash left no write-ahead log in %s: %v", dir, entries)
	}

	ts = servertest.StartDir(t, dir)
	for _, tok := range tokens {
		res := retrieve(t, ts, key, map[string]any{"query": tok, "memory": []map[string]any{{"name": "kb"}}, "topK": 1})
		if len(res) != 1 || res[0].DocumentName != tok+".txt" || !strings.Contains(res[0].Text, tok) {
			t.Errorf("retrieve %q after the crash: %+v", tok, res)
		}
	}
	stats := ts.Index.Stats()
	if len(stats) != 1 {
		t.Fatalf("index stats after the restart: %+v", stats)
	}
	st := stats[0]
	t.Logf("after the crash: %+v", st.Load)
	if st.Load.FromSnapshot || st.Load.Replayed != len(tokens) || st.Vectors != len(tokens) {
		t.Errorf("after the crash the graph loaded as %+v with %d vectors; want a rebuild of the %d stored vectors without a snapshot",
			st.Load, st.Vectors, len(tokens))
	}
}
