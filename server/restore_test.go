package server_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestKeywordSearchAfterRestore backs a server up, restores the backup into
// a new data dir and starts a server there. Backups hold only the store,
// not the Bleve directories, so the keyword indexes must be rebuilt from
// the stored chunk texts: keyword-only memories find their chunks again,
// and hybrid memories have both rankings.
func TestKeywordSearchAfterRestore(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kw", "embedding_model": "hearth:bm25"})
	createMemory(t, ts, key, map[string]any{"name": "hy", "embedding_model": hashModel})
	for _, mem := range []string{"kw", "hy"} {
		upload(t, ts, key, mem, "otters.md", "text/markdown", []byte("# Otters\n\nSea otters hold hands while they sleep."), nil)
		upload(t, ts, key, mem, "cranes.md", "text/markdown", []byte("# Cranes\n\nCranes dance in winter."), nil)
		waitCompleted(t, ts, key, mem, "otters.md")
		waitCompleted(t, ts, key, mem, "cranes.md")
	}
	var backup bytes.Buffer
	if err := ts.Store.Backup(context.Background(), &backup); err != nil {
		t.Fatal(err)
	}
	ts.Stop()

	dir := filepath.Join(t.TempDir(), "restored")
	if err := blob.Restore(dir, &backup); err != nil {
		t.Fatal(err)
	}
	ts = servertest.StartDir(t, dir)
	res := retrieve(t, ts, key, map[string]any{"query": "otters sleep", "memory": []map[string]any{{"name": "kw"}}, "topK": 5})
	if len(res) != 1 || !strings.Contains(res[0].Text, "Sea otters") || res[0].DocumentName != "otters.md" {
		t.Fatalf("keyword-only memory after restore: %+v", res)
	}
	res = retrieve(t, ts, key, map[string]any{"query": "otters sleep", "memory": []map[string]any{{"name": "hy"}}, "topK": 5})
	if len(res) != 2 || res[0].DocumentName != "otters.md" {
		t.Fatalf("hybrid memory after restore: %+v", res)
	}
	rebuilt := 0
	for _, s := range ts.Index.Stats() {
		if s.KeywordDocs != 2 {
			t.Fatalf("keyword index after restore: %+v", s)
		}
		if strings.Contains(s.Load.KeywordRebuilt, "missing") {
			rebuilt++
		}
	}
	if rebuilt != 2 {
		t.Fatalf("%d keyword indexes rebuilt, want 2: %+v", rebuilt, ts.Index.Stats())
	}
}

// TestLegacyVectorCopyIsDropped starts a server on a data dir that still
// has the memory engine's old copy of the vectors (vec/): Open deletes it in
// the background, and retrieval keeps working from the index's vectors.
func TestLegacyVectorCopyIsDropped(t *testing.T) {
	dir := t.TempDir()
	ts := servertest.StartDir(t, dir)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	upload(t, ts, key, "kb", "a.md", "text/markdown", []byte("# Herons\n\nHerons stand still in shallow water."), nil)
	waitCompleted(t, ts, key, "kb", "a.md")
	err := ts.Store.Update(context.Background(), func(tx engine.Tx) error {
		for i := 0; i < 1500; i++ {
			if err := tx.PutRaw(fmt.Sprintf("vec/mOld/v%04d.000000", i), make([]byte, 64)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ts.Stop()
	ts = servertest.StartDir(t, dir)
	deadline := time.Now().Add(10 * time.Second)
	for storeKeys(t, ts, "vec/")["vec/"] != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("legacy vectors left: %v", storeKeys(t, ts, "vec/"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	res := retrieve(t, ts, key, map[string]any{"query": "herons", "memory": []map[string]any{{"name": "kb"}}, "topK": 1})
	if len(res) != 1 || res[0].Similarity != 1 {
		t.Fatalf("retrieve: %+v", res)
	}
}
