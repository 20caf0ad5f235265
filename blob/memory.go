package blob

import (
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// diskMemTableSize is the memtable size of a store on disk. Badger flushes
// each full memtable into one level-0 table built in an allocator that
// starts at twice the base table size and doubles until the whole table
// fits, and keeps up to eight allocators in a pool that frees one only
// after 2 s without any table being built; under a steady write load (the
// run log at about 15,000 runs a second) nothing is ever freed, so the
// pool holds eight allocators the size of the largest builds. With
// Badger's 2 MiB base tables a 32 MiB memtable's flush took 60 MiB
// (4+8+16+32) and a 16 MiB one's 28; with diskTableSize the allocator
// starts at 16 MiB, which a 16 MiB memtable's table fits
// (docs/bench-log/2026-12-04.md, "Memory under sustained load"). The memtable size
// also bounds one transaction: Badger refuses a transaction whose records,
// counting values under the value threshold (valuelog.go) in full and
// larger ones as a pointer, pass 15 % of it; 16 MiB allows 2.4 MiB, over
// twice the 1 MiB the bulk writers cut their transactions to.
const diskMemTableSize = 16 << 20

// legacyMemTableSize is the memtable size of stores on disk before
// diskMemTableSize; see diskMemTableSizeFor.
const legacyMemTableSize = 32 << 20

// diskTableSize is the size of every table a store on disk's compactions
// write, at every level. Badger's default starts at 2 MiB at the base level
// and doubles at each level under it, so the bottom tables of a 10 GB data
// dir are 16 MiB and of a 100 GB one 32 MiB, and their builders'
// allocators, twice that, stay in the pool. An uncompressed table's
// builder needs twice its size, 16 MiB here, which is also where a
// memtable flush's allocator starts: every pooled allocator stays at 16
// MiB whatever the data dir's size. The price is more tables in a large
// data dir (one per 8 MiB: 1,250 for 10 GB, each an open file and a
// mapping, against about 780 with Badger's defaults).
const diskTableSize = 8 << 20

// memMemTableSize is the memtable size of a store in memory: there every
// value counts in full towards a transaction's bound (15 %, 4.8 MiB), so it
// keeps the size it has always had.
const memMemTableSize = 32 << 20

// diskCompression is how a store on disk compresses its tables: not at all.
// Snappy makes Badger's table builder reserve, in the same allocator, a
// compressed copy of every block at the block's worst-case size next to the
// block itself, and fill each table until its compressed size reaches the
// target; run records (JSON) compress about fourfold, so every 2 MiB table
// of a compaction took an allocator of 28 MiB where an uncompressed one
// takes the 4 MiB it starts with, and a compaction builds up to 13 tables at
// once. Without compression the live heap of a 60 s soak stayed under
// about 230 MiB instead of peaks of 700-850 MiB, at the price of tables
// about four times larger on disk for the run log. Since run records go to
// the value log (valuelog.go), which Badger never compresses, the tables
// hold mostly keys and pointers, and compressing them would save little
// disk. Badger
// records each table's compression in its manifest, so tables written
// compressed by older versions are read as they are and rewritten
// uncompressed when a compaction next merges them.
const diskCompression = options.None

// withMemoryBounds sets the options that bound Badger's memory under a
// sustained write load: eight pooled allocators of 16 MiB, the builds in
// progress and three memtables of 16 MiB at most (with the value threshold
// of valuelog.go, which keeps run records' values out of the memtables,
// few tables are built and the pool rarely holds more than one). With
// legacy (a store in memory, or one on disk opened with Options.Snappy) it
// keeps the options stores had before: 32 MiB memtables, Snappy, Badger's
// table sizes. The figures are per process: each Hearth node has its own
// Badger data dir (a cluster shares PostgreSQL, not Badger), so several
// nodes never share these allocators or memtables.
func withMemoryBounds(bo badger.Options, dir string, legacy bool) badger.Options {
	if legacy {
		return bo.WithMemTableSize(memMemTableSize)
	}
	bo = bo.WithMemTableSize(diskMemTableSizeFor(dir)).WithCompression(diskCompression).WithBaseTableSize(diskTableSize)
	bo.TableSizeMultiplier = 1
	return bo
}

// diskMemTableSizeFor returns the memtable size to open dir with. Badger
// replays each memtable log a kill left into a memtable of the size it is
// opened with, and stops the process when the log's records do not fit: a
// log written with 32 MiB memtables (an older version, killed) can hold
// more than a 16 MiB one takes. Badger creates a log at twice its
// memtable's size and cuts it to the length of its records only when it
// replays it, so a log of any other size than 32 MiB was either written by
// a larger memtable or cut by a replay whose open did not finish; a dir
// holding one opens with 32 MiB memtables, which every such log fits, as
// all versions did before. That open flushes the replayed memtables, so the
// next open uses 16 MiB again.
func diskMemTableSizeFor(dir string) int64 {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	for _, l := range logs {
		if fi, err := os.Stat(l); err == nil && fi.Size() != 2*diskMemTableSize {
			return legacyMemTableSize
		}
	}
	return diskMemTableSize
}
