package blob

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/ristretto/v2/z"
	"github.com/hearth-dev/hearth/engine"
)

// TestOpenOptionsBoundMemory: a store on disk opens by default with 16
// MiB memtables, uncompressed 8 MiB tables at every level and a 256-byte
// value threshold (memory.go, valuelog.go); a store in memory, and one on
// disk with Options.Snappy, keep 32 MiB memtables, Snappy and Badger's
// table sizes, the latter with the 4 KiB value threshold it always had.
func TestOpenOptionsBoundMemory(t *testing.T) {
	disk := New(Options{Dir: t.TempDir()})
	must(t, disk.Open())
	defer disk.Close()
	if o := disk.DB().Opts(); o.MemTableSize != 16<<20 || o.Compression != options.None || o.NumMemtables != 3 ||
		o.BaseTableSize != 8<<20 || o.TableSizeMultiplier != 1 || o.ValueThreshold != 256 {
		t.Fatalf("disk store: memtable %d, compression %v, memtables %d, tables %d × %d a level, value threshold %d; want 16 MiB, none, 3, 8 MiB × 1, 256",
			o.MemTableSize, o.Compression, o.NumMemtables, o.BaseTableSize, o.TableSizeMultiplier, o.ValueThreshold)
	}
	mem := New(Options{InMemory: true})
	must(t, mem.Open())
	defer mem.Close()
	snappy := New(Options{Dir: t.TempDir(), Snappy: true})
	must(t, snappy.Open())
	defer snappy.Close()
	for name, s := range map[string]*Store{"memory store": mem, "disk store with Snappy": snappy} {
		if o := s.DB().Opts(); o.MemTableSize != 32<<20 || o.Compression != options.Snappy || o.BaseTableSize != 2<<20 || o.TableSizeMultiplier != 2 {
			t.Fatalf("%s: memtable %d, compression %v, tables %d × %d a level; want 32 MiB, snappy, 2 MiB × 2",
				name, o.MemTableSize, o.Compression, o.BaseTableSize, o.TableSizeMultiplier)
		}
	}
	if vt := snappy.DB().Opts().ValueThreshold; vt != 4<<10 {
		t.Fatalf("disk store with Snappy: value threshold %d, want 4 KiB", vt)
	}
}

// TestOpenReplaysLogOfLargerMemtable opens a data dir as a kill -9 of an
// older version leaves it: a memtable log holding 24 MiB of records written
// with 32 MiB memtables, more than a 16 MiB memtable takes. Badger would
// stop the process replaying it; the store opens it with 32 MiB memtables,
// and the next open after a clean close uses 16 MiB again.
func TestOpenReplaysLogOfLargerMemtable(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 24 MiB")
	}
	src, dir := t.TempDir(), t.TempDir()
	bo := badger.DefaultOptions(src).WithLogger(nil).WithMemTableSize(32 << 20).WithValueThreshold(legacyValueThreshold)
	db, err := badger.Open(bo)
	must(t, err)
	val := bytes.Repeat([]byte("r"), 3000)
	const n = 8000 // 8000 × 3 KB: 24 MB in the memtable, none flushed
	for i := 0; i < n; i += 500 {
		must(t, db.Update(func(txn *badger.Txn) error {
			for j := i; j < i+500; j++ {
				if err := txn.Set(fmt.Appendf(nil, "k/%05d", j), val); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	copyDir(t, src, dir) // what a kill leaves: the logs as written, nothing flushed
	must(t, db.Close())

	s := New(Options{Dir: dir})
	must(t, s.Open())
	if got := s.DB().Opts().MemTableSize; got != 32<<20 {
		t.Errorf("open with a 32 MiB memtable's log: memtable %d", got)
	}
	count := 0
	must(t, s.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan("k/", "", func(string, []byte) error { count++; return nil })
	}))
	if count != n {
		t.Fatalf("after replay: %d of %d records", count, n)
	}
	must(t, s.Close())
	s = New(Options{Dir: dir})
	must(t, s.Open())
	defer s.Close()
	if got := s.DB().Opts().MemTableSize; got != 16<<20 {
		t.Errorf("open after a clean close: memtable %d, want 16 MiB", got)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	must(t, err)
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue
		}
		in, err := os.Open(filepath.Join(from, e.Name()))
		must(t, err)
		out, err := os.Create(filepath.Join(to, e.Name()))
		must(t, err)
		_, err = io.Copy(out, in)
		must(t, err)
		in.Close()
		must(t, out.Close())
	}
}

var allocatorTag = regexp.MustCompile(`Num: ([0-9]+) Size: ([0-9.]+) (B|KiB|MiB|GiB)`)

// badgerAllocators reports how many allocators Badger's table builders
// hold (in use and pooled) and their size, from ristretto's own report.
func badgerAllocators() (n int, mib float64) {
	for _, m := range allocatorTag.FindAllStringSubmatch(z.Allocators(), -1) {
		k, _ := strconv.Atoi(m[1])
		v, _ := strconv.ParseFloat(m[2], 64)
		n += k
		mib += v * map[string]float64{"B": 1.0 / (1 << 20), "KiB": 1.0 / 1024, "MiB": 1, "GiB": 1024}[m[3]]
	}
	return n, mib
}

// TestRunLogWriteKeepsBuilderMemoryBounded writes 400,000 run records
// through the run log as fast as it takes them (about 200 MB of keys and
// values) and checks, every 10,000 records, the largest average size of
// Badger's table builders' allocators. Badger pools up to eight of them and
// frees none while tables keep being built, so their size is what a
// sustained load keeps. A memtable flush's starts at twice the base table
// size and doubles until the table fits: 60 MiB (4+8+16+32) with 32 MiB
// memtables, Snappy and 2 MiB tables, 28 MiB (4+8+16) with 16 MiB memtables
// and uncompressed 2 MiB tables, 16 MiB with the store's options, which
// every compaction's builder also takes; and, as few tables are built, at
// most 64 MiB of them in all (112 MiB with the 4 KiB value threshold). It
// also checks where the records went: the value log holds them, the LSM
// tree only their keys and pointers (valuelog.go), so the tree's tables
// stay under 150 bytes a run (76 measured; about 530 with the 4 KiB
// threshold).
func TestRunLogWriteKeepsBuilderMemoryBounded(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("writes 400,000 records; too slow under the race detector")
	}
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	must(t, s.Open())
	defer s.Close()
	l := engine.NewRunLog(s, nil, nil)
	ctx := context.Background()
	var peak, total float64
	check := func() {
		n, mib := badgerAllocators()
		if n > 0 && mib/float64(n) > peak {
			peak = mib / float64(n)
		}
		total = max(total, mib)
	}
	const n = 400_000
	for i := range n {
		l.Record(engine.RunRecord{ID: engine.NewRunID(ctx, time.Now()), Owner: "bench", PipeID: "pipe_8c7v6b5n4m3k2j1h", Pipe: "bench-nostore",
			Model: "openai:gpt-4o-mini", Endpoint: "/v1/pipes/run", Status: engine.RunSuccess, PromptTokens: 12, CompletionTokens: 9,
			TotalTokens: 21, CreatedAt: time.Now().UTC(), KeyID: "key_abcdefgh12345678", Kind: engine.RunKindPipe})
		if i%10_000 == 0 {
			check()
		}
	}
	must(t, l.Close())
	check()
	t.Logf("Badger's table builder allocators: at most %.1f MiB each, %.0f MiB in all", peak, total)
	if peak > 20 || total > 64 {
		t.Fatalf("Badger's table builder allocators grew to %.1f MiB each, %.0f MiB in all, while the run log wrote; want at most 20 and 64 (%s)", peak, total, z.Allocators())
	}
	must(t, s.Close()) // flushes the last memtable
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	var tree int64
	for _, f := range tables {
		fi, err := os.Stat(f)
		must(t, err)
		tree += fi.Size()
	}
	vlog, _ := valueLogBytes(t, dir)
	t.Logf("LSM tables %d bytes (%d a run), value log %d bytes (%d a run)", tree, tree/n, vlog, vlog/n)
	if tree > n*150 || vlog < n*400 {
		t.Fatalf("LSM tables %d bytes, value log %d for %d run records: want the records in the value log, under 150 bytes a run in the tree", tree, vlog, n)
	}
}

// TestOpenReadsCompressedTables: a data dir whose tables older versions
// wrote with Snappy opens with the store's uncompressed options and reads
// every record, before and after a compaction rewrites its tables
// uncompressed (Badger keeps each table's compression in its manifest).
func TestOpenReadsCompressedTables(t *testing.T) {
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithMemTableSize(32 << 20).
		WithCompression(options.Snappy).WithValueThreshold(legacyValueThreshold))
	must(t, err)
	const n = 5000
	must(t, db.Update(func(txn *badger.Txn) error {
		for i := range n {
			if err := txn.Set(fmt.Appendf(nil, "k/%05d", i), fmt.Appendf(nil, `{"n":%d,"pad":"%0200d"}`, i, i)); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, db.Close()) // flushes the memtable into a Snappy table
	s := New(Options{Dir: dir})
	must(t, s.Open())
	defer s.Close() // closing twice is allowed
	if s.DB().Opts().Compression != options.None {
		t.Fatal("the store did not open with uncompressed tables")
	}
	if disk, raw := tableSizes(s.DB()); disk == 0 || disk*4 > raw {
		t.Fatalf("want the older version's compressed tables: %d bytes on disk for %d", disk, raw)
	}
	check := func(when string) {
		t.Helper()
		count := 0
		must(t, s.View(context.Background(), func(tx engine.Tx) error {
			return tx.Scan("k/", "", func(k string, v []byte) error {
				if want := fmt.Sprintf(`{"n":%d,`, count); k != fmt.Sprintf("k/%05d", count) || !bytes.HasPrefix(v, []byte(want)) {
					return fmt.Errorf("%s: record %d is %s = %.20s", when, count, k, v)
				}
				count++
				return nil
			})
		}))
		if count != n {
			t.Fatalf("%s: %d of %d records", when, count, n)
		}
	}
	check("after opening")
	// The same records again, then a close: its flush and level-0
	// compaction merge them with the old table into uncompressed ones.
	must(t, s.Update(context.Background(), func(tx engine.Tx) error {
		for i := range n {
			if err := tx.PutRaw(fmt.Sprintf("k/%05d", i), fmt.Appendf(nil, `{"n":%d,"pad":"%0200d"}`, i, i)); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, s.Close())
	s = New(Options{Dir: dir})
	must(t, s.Open())
	defer s.Close()
	if disk, raw := tableSizes(s.DB()); disk < raw {
		t.Fatalf("after a compaction: %d bytes on disk for %d, want the tables uncompressed", disk, raw)
	}
	check("after a compaction")
}

// tableSizes sums the tables' sizes on disk and uncompressed.
func tableSizes(db *badger.DB) (disk, raw int64) {
	for _, ti := range db.Tables() {
		disk, raw = disk+int64(ti.OnDiskSize), raw+int64(ti.UncompressedSize)
	}
	return disk, raw
}
