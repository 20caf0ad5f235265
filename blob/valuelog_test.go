package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

type chunkRec struct {
	Doc  string `json:"doc"`
	Text string `json:"text"`
}

// chunkText is a record the size of a default chunk (10,000 characters).
func chunkText(i int) string {
	return fmt.Sprintf("chunk %d: ", i) + strings.Repeat("the quick brown fox jumps over the lazy dog. ", 222)
}

func chunkKeyT(i int) string { return fmt.Sprintf("chunk/%06d", i) }

func writeChunks(t *testing.T, s *Store, from, to int) {
	t.Helper()
	ctx := context.Background()
	for i := from; i < to; i++ {
		must(t, s.Update(ctx, func(tx engine.Tx) error { return tx.Put(chunkKeyT(i), chunkRec{"d", chunkText(i)}) }))
	}
}

// checkChunks reads chunks from..to-1, skipping those in gone, which must
// be absent.
func checkChunks(t *testing.T, s *Store, from, to int, gone func(int) bool) {
	t.Helper()
	ctx := context.Background()
	for i := from; i < to; i++ {
		var r chunkRec
		err := s.View(ctx, func(tx engine.Tx) error { return tx.Get(chunkKeyT(i), &r) })
		if gone != nil && gone(i) {
			if !errors.Is(err, engine.ErrNotFound) {
				t.Fatalf("deleted chunk %d: %v", i, err)
			}
			continue
		}
		must(t, err)
		if r.Text != chunkText(i) {
			t.Fatalf("chunk %d: got %d bytes, want %d", i, len(r.Text), len(chunkText(i)))
		}
	}
}

// tableBytes is the uncompressed size of the store's LSM tables.
func tableBytes(s *Store) (n int64) {
	for _, ti := range s.db.Tables() {
		n += int64(ti.UncompressedSize)
	}
	return n
}

// TestChunkRecordsInValueLog: records of a default chunk's size are written
// to the value log, so the LSM tree holds pointers to them, not their texts.
func TestChunkRecordsInValueLog(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	must(t, s.Open())
	writeChunks(t, s, 0, 300)
	must(t, s.Close())
	s = openT(t, Options{Dir: dir})
	data := int64(300 * len(chunkText(0)))
	if tb := tableBytes(s); tb == 0 || tb > data/10 {
		t.Fatalf("the LSM tables hold %d bytes for %d bytes of chunk texts: the texts are in the tree", tb, data)
	}
	checkChunks(t, s, 0, 300, nil)
}

// TestOldThresholdDataDirReadable opens a data dir written with Badger's
// default threshold, as Hearth did before (every value in the LSM tree),
// reads it, writes and deletes, compacts old and new tables together and
// opens it again.
func TestOldThresholdDataDirReadable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := valueThreshold
	valueThreshold = 1 << 20
	s := New(Options{Dir: dir})
	err := s.Open()
	valueThreshold = old
	must(t, err)
	writeChunks(t, s, 0, 300)
	blob := bytes.Repeat([]byte("document bytes "), 100_000)
	_, err = s.PutBlob(ctx, "old", bytes.NewReader(blob))
	must(t, err)
	must(t, s.Close())

	s = New(Options{Dir: dir})
	must(t, s.Open())
	if tb := tableBytes(s); tb < int64(300*len(chunkText(0))) {
		t.Fatalf("the old data dir's tables hold %d bytes: the test does not write the old layout", tb)
	}
	checkChunks(t, s, 0, 300, nil)
	writeChunks(t, s, 300, 600)
	gone := func(i int) bool { return i%3 == 0 }
	must(t, s.Update(ctx, func(tx engine.Tx) error {
		for i := 0; i < 600; i += 3 {
			if err := tx.Delete(chunkKeyT(i)); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, s.db.Flatten(1))
	checkChunks(t, s, 0, 600, gone)
	must(t, s.Close())

	s = openT(t, Options{Dir: dir})
	checkChunks(t, s, 0, 600, gone)
	got, err := s.GetBlob(ctx, "old")
	must(t, err)
	if !bytes.Equal(got, blob) {
		t.Fatal("the old blob changed")
	}
}
