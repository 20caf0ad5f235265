package blob

// valueThreshold is the size from which Badger writes a value to its value
// log and keeps only a pointer to it in its LSM tree (Badger's default is
// 1 MiB, so nearly everything lived in the tree). Chunk records (10,000
// characters by default) and blob parts (up to 512 KiB, zstd compressed)
// are written once, at the end of the log, instead of being copied into
// memtables, flushed into tables, compressed with Snappy and rewritten at
// each compaction: about 9 % less CPU per MB ingested (docs/benchmarks.md,
// round 3 of the ingestion section). The trade is disk: values in the log
// are not compressed by Badger (blob parts already are; chunk texts are
// stored as they are), and deleted values take space until value-log
// garbage collection (gcLoop) rewrites the files they are in.
//
// Records smaller than this (documents, jobs, settings, vectors) stay in
// the tree. A store in memory keeps Badger's threshold (it has no value
// log and refuses values over a smaller one). The threshold only decides
// where new writes go: Badger reads a value from wherever it was written,
// so data dirs written with the old threshold open and read unchanged, and
// nodes with different thresholds (each has its own data dir; a cluster
// shares PostgreSQL, not Badger) read each other's data. It is a variable
// only so a test can write a data dir the way older versions did.
var valueThreshold int64 = 4 << 10
