package blob

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4/options"
	"github.com/hearth-dev/hearth/engine"
)

type chunkRec struct {
	Text string `json:"text"`
}

// chunkText is a compressible text, as chunk texts are: Snappy shrinks a
// table of such records to a fraction of its size.
func chunkText(i int) string {
	return fmt.Sprintf("chunk %d: ", i) + strings.Repeat("the quick brown fox jumps over the lazy dog. ", 200)
}

func writeChunks(t *testing.T, s *Store, from, to int) {
	t.Helper()
	ctx := context.Background()
	for i := from; i < to; i++ {
		must(t, s.Update(ctx, func(tx engine.Tx) error {
			return tx.Put(fmt.Sprintf("chunk/%06d", i), chunkRec{chunkText(i)})
		}))
	}
}

func checkChunks(t *testing.T, s *Store, n int) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i++ {
		var r chunkRec
		must(t, s.View(ctx, func(tx engine.Tx) error { return tx.Get(fmt.Sprintf("chunk/%06d", i), &r) }))
		if r.Text != chunkText(i) {
			t.Fatalf("chunk %d: got %d bytes, want %d", i, len(r.Text), len(chunkText(i)))
		}
	}
}

// tableSizes sums the on-disk and uncompressed sizes of the store's tables.
func tableSizes(s *Store) (onDisk, raw int64, tables int) {
	for _, ti := range s.db.Tables() {
		onDisk += int64(ti.OnDiskSize)
		raw += int64(ti.UncompressedSize)
		tables++
	}
	return onDisk, raw, tables
}

// TestTablesUncompressed: the tables a store writes are not block
// compressed (Snappy would store these records in a fraction of their size).
func TestTablesUncompressed(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	must(t, s.Open())
	writeChunks(t, s, 0, 300)
	must(t, s.Close())
	s = openT(t, Options{Dir: dir})
	onDisk, raw, n := tableSizes(s)
	if n == 0 || raw == 0 {
		t.Fatalf("no tables after close (%d tables, %d bytes)", n, raw)
	}
	if onDisk < raw {
		t.Fatalf("tables are compressed: %d bytes on disk for %d uncompressed", onDisk, raw)
	}
	checkChunks(t, s, 300)
}

// TestSnappyDataDirStillReadable opens a data dir whose tables were written
// with Snappy, as Hearth did before, reads everything back, writes more and
// compacts old and new tables together.
func TestSnappyDataDirStillReadable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tableCompression = options.Snappy
	s := New(Options{Dir: dir})
	err := s.Open()
	tableCompression = options.None
	must(t, err)
	writeChunks(t, s, 0, 300)
	blob := bytes.Repeat([]byte("document bytes "), 100_000)
	_, err = s.PutBlob(ctx, "old", bytes.NewReader(blob))
	must(t, err)
	must(t, s.Close())

	s = openT(t, Options{Dir: dir})
	onDisk, raw, _ := tableSizes(s)
	if onDisk*2 > raw {
		t.Fatalf("the old tables are not Snappy compressed (%d on disk, %d raw): the test does not test the old format", onDisk, raw)
	}
	checkChunks(t, s, 300)
	got, err := s.GetBlob(ctx, "old")
	must(t, err)
	if !bytes.Equal(got, blob) {
		t.Fatal("old blob changed")
	}
	writeChunks(t, s, 300, 600)
	must(t, s.db.Flatten(1))
	checkChunks(t, s, 600)
	got, err = s.GetBlob(ctx, "old")
	must(t, err)
	if !bytes.Equal(got, blob) {
		t.Fatal("old blob changed after compaction")
	}
}
