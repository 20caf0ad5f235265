package blob

// valueThreshold is the size from which a store on disk writes a value to
// Badger's value log and keeps only a pointer to it in its LSM tree
// (Badger's default is 1 MiB, so nearly everything lived in the tree).
// Values written there are written once, at the end of the log, instead of
// being copied into a memtable, flushed into a level-0 table and rewritten
// by every compaction that merges it.
//
// At 256 bytes that covers run records (300 to 600 bytes, written by the run
// log at thousands a second): the tree's tables keep about 60-80 bytes a run
// (its keys and a 12-byte pointer) instead of about 450-530, so memtables fill
// more slowly, fewer tables are built and compactions move about a seventh of
// the bytes (docs/bench-log/2026-12-04.md, "The embedded store under sustained
// writes"). Chunk records (10,000 characters by default) and blob parts (up to
// 512 KiB, zstd compressed) went there at 4 KiB already (about 9 % less CPU per
// MB ingested; docs/bench-log/2026-12-04.md, HTTP ingestion with chunks in
// Badger's value log). Records under it (a pipe's run index entries, spend counters, small
// settings) stay in the tree.
//
// The trade is disk and garbage collection: values in the log are not
// compressed by Badger (blob parts already are; run records and chunk
// texts are stored as they are), and deleted or overwritten values take
// space until value-log garbage collection (gcLoop) rewrites the files
// they are in (TestValueLogGCReclaimsDeletedRecords).
//
// A store in memory keeps Badger's threshold (it has no value log and
// refuses values over a smaller one); a store opened with Options.Snappy
// uses legacyValueThreshold, as versions before the bounded store did. The
// threshold only decides where new writes go: Badger reads a value from
// wherever it was written, so data dirs written with another threshold
// open and read unchanged, and nodes with different thresholds (each has
// its own data dir; a cluster shares PostgreSQL, not Badger) read each
// other's data. It is a variable only so a test can write a data dir the
// way older versions did.
var valueThreshold int64 = 256

// legacyValueThreshold is the value threshold of a store opened with
// Options.Snappy, and of every store on disk before the bounded store.
const legacyValueThreshold = 4 << 10

// valueThresholdFor returns the value threshold of a store on disk.
func valueThresholdFor(snappy bool) int64 {
	if snappy {
		return legacyValueThreshold
	}
	return valueThreshold
}
