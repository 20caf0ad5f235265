package blob

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestOpenAfterKillDuringMemtableCreation reopens a data dir as a kill -9
// can leave it: Badger creates its next memtable log (NNNNN.mem) and then
// sizes it, so a kill between the two leaves a zero-byte file, which Badger
// alone refuses to open ("Create a new file").
func TestOpenAfterKillDuringMemtableCreation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	must(t, s.Open())
	must(t, s.Update(ctx, func(tx engine.Tx) error { return tx.Put("k", rec{"kept", 7}) }))
	must(t, s.Close())

	mems, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	sort.Strings(mems)
	empty := filepath.Join(dir, "99999.mem")
	if len(mems) > 0 {
		t.Logf("memtable logs after close: %v", mems)
	}
	must(t, os.WriteFile(empty, nil, 0o600))

	s = New(Options{Dir: dir})
	must(t, s.Open())
	defer s.Close()
	var r rec
	must(t, s.View(ctx, func(tx engine.Tx) error { return tx.Get("k", &r) }))
	if r.Name != "kept" {
		t.Fatalf("after reopen: %+v", r)
	}
}
