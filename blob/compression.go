package blob

import "github.com/dgraph-io/badger/v4/options"

// tableCompression is the block compression of the tables Badger writes
// (its LSM tree, where every value under its value threshold lives: records,
// chunk texts and blob parts). Hearth compresses blob parts itself with
// zstd, so Badger's default Snappy compressed them a second time for
// nothing, and for chunk records it was about 8 % of the CPU of an
// ingestion (each table is compressed when flushed and again at every
// compaction). None trades that CPU for disk: chunk texts are stored as
// they are (README "Benchmarks", docs/benchmarks.md round 3 of the
// ingestion section).
//
// Badger records each table's compression in its manifest and reads a
// table with the compression it was written with, so data dirs written
// with Snappy stay readable; their tables become uncompressed as
// compaction rewrites them. The choice is per process: nodes of a cluster
// each have their own data dir (or share PostgreSQL, not Badger), so
// nodes with different choices read each other's data unchanged. It is a
// variable only so a test can write a data dir the way older versions did.
var tableCompression = options.None
