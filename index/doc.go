// Package index holds the search indexes of Hearth's memories: an HNSW
// graph (vector similarity) and a Bleve index (BM25 keywords) per memory,
// their persistence, and the fusion of both rankings. Manager implements
// engine.SearchIndex; the engine never sees the types underneath.
//
// # Vector search
//
// HNSW is our own implementation of Malkov & Yashunin (2016): layered
// graph, greedy descent through the upper layers, best-first search of
// layer 0 bounded by ef = max(EfSearch, k), and the paper's neighbour
// selection heuristic (Algorithm 4) both for a new node's links and when an
// overfull neighbour list is shrunk. (The github.com/coder/hnsw release the
// module proxy serves returns wrong neighbours on clustered data;
// bench_test.go keeps the comparison.)
//
// Parameters (HNSWConfig): M = 16 links per node on upper layers, 2*M on
// layer 0; EfConstruction = 200; EfSearch = 128. The recall, latency and
// build throughput they give are measured by `make bench` and kept in the
// benchmarks reference (docs/benchmarks.md, linked from the README) only.
//
// Vectors are normalised on insert and compared by dot product (cosine).
// Each vector is also kept quantised to int8 (scaled so its largest
// component is ±127, one float32 factor per vector): graph walks, while
// inserting and searching, compare these codes, a quarter of the memory
// traffic of float32, which is what bounds a walk over a large graph. A
// search then re-ranks the ef
// candidates of its walk with the float32 vectors, so scores are exact.
// Kernels: AVX2+FMA (float32) and AVX2 (int8) assembly on amd64, and
// unrolled pure-Go loops elsewhere (build tag purego forces them); a walk
// prefetches the codes of the next neighbours. Storage is dense: vectors
// in one []float32, codes in one []int8, layer-0 links in one []uint32 with
// fixed slots, string chunk ids mapped to dense uint32 ids. Memory: about
// 5 bytes a dimension plus ~140 bytes of links and id per vector.
//
// Concurrency: searches run in parallel with one writer. The writer takes
// the graph's lock only to append new nodes (the arrays grow) and to
// delete; it links them without it. A batch (AddBatch, a Manager.Add of
// many chunks, a rebuild on load, Compact) is linked by
// HNSWConfig.BuildWorkers goroutines (default GOMAXPROCS) in parallel, as in
// hnswlib: every link word is read and written atomically, a node's links
// change only under its striped lock, layers are searched top-down and
// linked bottom-up, and a node that rises above the top layer is linked
// under a graph-wide lock. The first 1024 nodes of a graph are linked one
// at a time. TestHNSWParallelBuild checks that a parallel build keeps the
// recall of a serial one.
//
// Deletes are tombstones: deleted nodes are still walked through, so the
// graph stays connected, but never returned. Manager.Maintain (run by the
// background loop) rebuilds a graph without its tombstones once they exceed
// Options.CompactFraction (0.2); searches keep using the old graph until
// the new one is swapped in.
//
// Filters (allow funcs from meta filters) are applied during the walk, not
// after it. When the filter is so selective that a walk bounded to
// max(32*ef, n/16) distance computations cannot find k allowed vectors, the
// search falls back to an exact scan of the allowed ones, so a filtered
// search returns k hits whenever k allowed vectors exist.
//
// Memories with fewer than Options.ExactThreshold (4096) live vectors are
// searched exactly (Flat's scan); at that size a scan is as fast as the
// graph and always exact.
//
// # Persistence (engine.Store keys)
//
// The index holds the only stored copy of the vectors (the memory engine
// keeps the chunk texts and asks HasVectors which chunks are indexed when
// it resumes an interrupted ingestion), written transactionally in Add
// before the graph changes, and snapshots of the graph:
//
//	idx/<memoryID>/seq               u64 LE: sequence number of the last committed change
//	idx/<memoryID>/v/<chunkID>       u64 LE seq of the write, then dim x f32 LE (unit vector)
//	idx/<memoryID>/manifest          JSON {format, gen, seq, parts, bytes, crc32c, nodes, live, dim, written}
//	idx/<memoryID>/snap/<gen>/<part> snapshot bytes; gen %016x, part %08x; 512 KiB per part
//	idx/<memoryID>/drop              present only while DropMemory is in progress
//	idx/<memoryID>/kwseq             u64 LE: sequence number of the last keyword index change
//
// Each Add or Remove commits its vector records and a new seq in one
// transaction (split into several for very large batches). Snapshots are
// written lazily: when a graph changed, by the background loop
// (Options.SnapshotInterval, default 2 min), Flush and Close. A snapshot
// (format in codec.go; it includes the vectors, so a restart reads nothing
// else) is streamed into parts under a new generation, a few parts per
// transaction to stay within Badger's transaction limits; the manifest is
// written in the same transaction as the last part. A crash before that
// leaves the previous manifest, and so the previous snapshot, in force; the
// orphan parts are deleted on the next load.
//
// Loading a memory (on first use): read the manifest and check the parts
// against its length and CRC-32C; then, if the snapshot's seq is behind the
// stored seq (changes after the last snapshot), replay: scan the vector
// records, insert those written after the snapshot, delete graph nodes whose
// record is gone. Without a usable snapshot the replay starts from an empty
// graph, which is a full rebuild. Manager.Stats reports which path was taken.
//
// DropMemory writes the drop marker, deletes the manifest and seq, the
// Bleve directory, then every other key (in bounded transactions), then the
// marker; a drop interrupted by a crash is finished on the next load.
//
// # Keyword search
//
// Each memory has a Bleve scorch index on disk at <bleveDir>/<memoryID>,
// created on the first chunk with text; chunk ids are document ids, the
// text is indexed with the "en" analyzer (configurable; new indexes get
// hearth_en, the same terms from a faster tokenizer, see fastUnicode) and
// not stored. Add buffers the texts and writes them in batches (kwBuffer).
// Scoring is BM25 (IndexMapping.ScoringModel = "bm25", honoured only by disk
// scorch indexes; NewMemOnly silently uses TF-IDF). Bleve v2.6.1's BM25 has
// two quirks, pinned by TestKeywordScoresAreBM25: the term frequency enters
// as sqrt(tf), and the average field length is ceil(distinct terms of the
// field / documents). Ranks, which fusion uses, are what matters.
//
// A chunk with an empty vector is keyword-only: a memory whose embedding
// model is hearth:bm25 has only a Bleve index.
//
// The Bleve directories are not in the store, so they can fall behind it: a
// backup holds only the store, a kill can come before Bleve persisted its
// last batches, files can be damaged. Each keyword change commits a new
// idx/<m>/kwseq to the store first and records the same number in the Bleve
// batch (an internal value, persisted atomically with the batch). Loading a
// memory compares the two; when the Bleve index is missing, unreadable or at
// another number, it is rebuilt from the chunk texts, which the memory
// engine provides as an engine.ChunkSource (its chunk records are the source
// of truth). A store without kwseq (data from before it existed) is checked
// by comparing the number of chunk texts with the Bleve document count.
// LoadInfo.KeywordRebuilt says why a rebuild happened. A Bleve write that
// fails marks the index stale, and the next change rebuilds it first.
//
// # Cluster mode
//
// With Options.Cluster shared (several nodes on one PostgreSQL database,
// see docs/several-nodes.md), the store holds the truth
// and each node's graphs and Bleve indexes are replicas of it. With
// engine.Local (the embedded default) none of this runs: no change log,
// no extra read, no subscription, no polling goroutine.
//
//	idx/<memoryID>/log/<seq>         one change: seq %016x; the vectors put
//	                                 (unit float32), the ids deleted, the
//	                                 texts indexed and the ids unindexed
//
// Writes. Each transaction of an Add or Remove reads idx/<m>/seq, writes
// the vector records with seq+1, the log entry seq+1 (a batch per entry,
// complete, so another node applies it reading nothing else) and seq+1,
// and publishes the memory id on the cluster topic "index". Every writer
// of a memory reads and writes the one seq key, so the store serialises
// them (PostgreSQL SERIALIZABLE aborts one of two such transactions, which
// is retried; Badger reports the conflict, which is retried too): per
// memory, seqs commit in order and without gaps, and a reader that sees
// seq n sees log entries 1..n except those trimmed from the front.
//
// Replicas. A node tracks the seq its graph has applied and, recorded in
// the Bleve index itself ("hearth.nodeseq", written in the batch of the
// change), the seq its Bleve index has applied: never the shared kwseq,
// so nodes do not rebuild each other's indexes. It catches up, applying
// the log entries after its positions in order, on a notification for a
// loaded memory (key "" means every loaded memory), on first use, before
// HasVectors (an ingestion resumed on another node asks it), after its
// own write when another node committed in between, before every search
// (one read of the memory's seq key: a search sees every change that
// committed before it started, so a document completed through one node
// is found on all), and when a poll of the loaded memories' seq keys
// (Options.PollInterval, 1 s; one read transaction) finds it behind,
// which covers lost notifications. When the
// log was trimmed past a replica's position, the graph is replayed from
// the vector records (the load's replay: insert newer records, delete
// nodes without one) and the Bleve index rebuilt from the chunk texts
// aside (<bleveDir>/.rebuild/<m>) and swapped in. A memory deleted by
// another node (drop marker, or a seq below the node's) is emptied.
//
// Snapshots and trimming. Any node loads the newest snapshot, then
// catches up from its seq. Snapshots are written by one node at a time,
// under Cluster.TryLock("index-snapshot:<m>"), and only when the stored
// manifest is older than the node's graph; leftover parts are deleted by
// the snapshot writer only (never on load, where they could be another
// node's snapshot in progress). Under the same lock, Maintain deletes the
// log entries covered by the stored snapshot and older than
// Options.LogRetention (10 minutes). Age comes from the node's own marks
// (the seq it had applied at each maintenance, kept in memory): a node up
// for less than the retention trims nothing. A node further behind than
// the log rebuilds as above; the Bleve directory under HEARTH_DATA is a
// per-node cache.
//
// # Hybrid ranking
//
// FuseRRF merges a vector ranking and a keyword ranking by weighted
// reciprocal rank fusion, score = wVec/(k+rankVec) + wKw/(k+rankKw) with
// k = 60 by default. The engine decides the weights and how many hits of
// each kind to fetch.
package index
