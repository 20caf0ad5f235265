package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestKeywordIndexRebuiltAfterRestore: a backup holds the records but not
// the Bleve files beside the database. A data dir without them (as after
// hearth restore) gets its keyword indexes rebuilt from the stored chunks
// at start, so keyword-only and hybrid retrieval find the same as before.
func TestKeywordIndexRebuiltAfterRestore(t *testing.T) {
	dir := t.TempDir()
	ts := servertest.StartDir(t, dir)
	createMemory(t, ts, admin, map[string]any{"name": "kw", "embedding_model": "hearth:bm25"})
	createMemory(t, ts, admin, map[string]any{"name": "hy", "embedding_model": hashModel})
	for _, m := range []string{"kw", "hy"} {
		upload(t, ts, admin, m, "a.txt", "text/plain", []byte("the quick brown fox jumps over the lazy dog"), nil)
		upload(t, ts, admin, m, "b.txt", "text/plain", []byte("a slow green turtle sleeps under the old bridge"), nil)
		waitCompleted(t, ts, admin, m, "a.txt")
		waitCompleted(t, ts, admin, m, "b.txt")
	}
	retrieve := func(ts *servertest.Server, m string) string {
		r := ts.Do("POST", "/v1/memory/retrieve", admin, map[string]any{"query": "turtle bridge", "topK": 1, "memory": []map[string]string{{"name": m}}})
		mustStatus(t, r, 200)
		return string(r.Body)
	}
	before := map[string]string{"kw": retrieve(ts, "kw"), "hy": retrieve(ts, "hy")}
	ts.Stop()
	if err := os.RemoveAll(filepath.Join(dir, "bleve")); err != nil {
		t.Fatal(err)
	}
	ts = servertest.StartDir(t, dir)
	for m, want := range before {
		got := retrieve(ts, m)
		if !strings.Contains(got, "turtle") || got != want {
			t.Errorf("%s after the rebuild: %s, before: %s", m, got, want)
		}
	}
}
