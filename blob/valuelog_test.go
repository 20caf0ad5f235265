package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// runSized is a record the size of a run record (about 420 bytes).
func runSized(i int) []byte {
	return fmt.Appendf(nil, `{"id":"%019d","owner_login":"bench","pipe":"bench-nostore","model":"openai:gpt-4o-mini","pad":"%0330d"}`, i, i)
}

// valueLogBytes sums the sizes of the data dir's value-log files.
func valueLogBytes(t *testing.T, dir string) (n int64, files int) {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "*.vlog"))
	must(t, err)
	for _, l := range logs {
		fi, err := os.Stat(l)
		must(t, err)
		n += fi.Size()
	}
	return n, len(logs)
}

// TestValueLogGCReclaimsDeletedRecords: records the size of run records go
// to the value log (valuelog.go), so deleting them frees no disk until
// value-log garbage collection rewrites the files they are in. The test
// fills several 1 MiB value-log files, deletes two thirds of the records,
// lets a compaction count what was deleted, and checks that the store's
// collection (gcLoop's) removes files and that every record left reads
// back unchanged, also after a reopen.
func TestValueLogGCReclaimsDeletedRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := Options{Dir: dir, valueLogFileSize: 1 << 20}
	s := New(opts)
	must(t, s.Open())
	const n = 12_000 // about 5 MB: five value-log files
	for i := 0; i < n; i += 500 {
		must(t, s.Update(ctx, func(tx engine.Tx) error {
			for j := i; j < i+500; j++ {
				if err := tx.PutRaw(fmt.Sprintf("run/%06d", j), runSized(j)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	if tb := tableBytes(s); tb > n*100 {
		t.Fatalf("the LSM tables hold %d bytes for %d run-sized records: they are not in the value log", tb, n)
	}
	gone := func(i int) bool { return i%3 != 0 }
	for i := 0; i < n; i += 600 {
		must(t, s.Update(ctx, func(tx engine.Tx) error {
			for j := i; j < i+600; j++ {
				if gone(j) {
					if err := tx.Delete(fmt.Sprintf("run/%06d", j)); err != nil {
						return err
					}
				}
			}
			return nil
		}))
	}
	// Badger learns which value-log entries are dead from the compactions
	// that drop them; a close flushes the memtable, and Flatten merges
	// every level.
	must(t, s.Close())
	s = New(opts)
	must(t, s.Open())
	must(t, s.db.Flatten(1))
	before, files := valueLogBytes(t, dir)
	if files < 4 {
		t.Fatalf("%d value-log files for %d records: the test does not fill several", files, n)
	}
	s.collectValueLog()
	after, left := valueLogBytes(t, dir)
	if after > before*2/3 {
		t.Fatalf("value-log GC left %d of %d bytes (%d of %d files) after two thirds of the records were deleted", after, before, left, files)
	}
	check := func() {
		t.Helper()
		count := 0
		must(t, s.View(ctx, func(tx engine.Tx) error {
			return tx.Scan("run/", "", func(k string, v []byte) error {
				var i int
				fmt.Sscanf(k, "run/%06d", &i)
				if gone(i) || !bytes.Equal(v, runSized(i)) {
					return fmt.Errorf("%s = %.40s", k, v)
				}
				count++
				return nil
			})
		}))
		if count != n/3 {
			t.Fatalf("%d records left, want %d", count, n/3)
		}
	}
	check()
	must(t, s.Close())
	s = openT(t, opts)
	check()
}

// TestDataDirsOfEitherModeReadable: a data dir written by the bounded store
// of the previous version (run-sized records in the LSM tree, 4 KiB value
// threshold) opens with today's options and reads unchanged; records
// written now go to the value log; a compaction merges both; and a store
// opened with Options.Snappy (going back) reads and extends it, and today's
// options read the result.
func TestDataDirsOfEitherModeReadable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	put := func(s *Store, from, to int) {
		t.Helper()
		must(t, s.Update(ctx, func(tx engine.Tx) error {
			for i := from; i < to; i++ {
				if err := tx.PutRaw(fmt.Sprintf("run/%06d", i), runSized(i)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	check := func(s *Store, n int, when string) {
		t.Helper()
		count := 0
		must(t, s.View(ctx, func(tx engine.Tx) error {
			return tx.Scan("run/", "", func(k string, v []byte) error {
				if k != fmt.Sprintf("run/%06d", count) || !bytes.Equal(v, runSized(count)) {
					return fmt.Errorf("%s: record %d is %s = %.40s", when, count, k, v)
				}
				count++
				return nil
			})
		}))
		if count != n {
			t.Fatalf("%s: %d of %d records", when, count, n)
		}
	}
	old := valueThreshold
	valueThreshold = legacyValueThreshold
	s := New(Options{Dir: dir})
	err := s.Open()
	valueThreshold = old
	must(t, err)
	put(s, 0, 3000)
	must(t, s.Close())
	if n, _ := valueLogBytes(t, dir); n > 1<<20 {
		t.Fatalf("the old bounded store wrote %d bytes of value log: the test does not write the old layout", n)
	}

	s = New(Options{Dir: dir})
	must(t, s.Open())
	check(s, 3000, "old layout, today's options")
	put(s, 3000, 6000)
	must(t, s.db.Flatten(1))
	check(s, 6000, "both layouts after a compaction")
	must(t, s.Close())
	if n, _ := valueLogBytes(t, dir); n < 3000*400 {
		t.Fatalf("today's options wrote %d bytes of value log for 3,000 run-sized records", n)
	}

	s = New(Options{Dir: dir, Snappy: true})
	must(t, s.Open())
	check(s, 6000, "opened with Snappy")
	put(s, 6000, 7000)
	must(t, s.Close())
	s = openT(t, Options{Dir: dir})
	check(s, 7000, "today's options after Snappy")
}
