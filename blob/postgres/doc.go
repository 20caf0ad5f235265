// Package postgres is the PostgreSQL implementation of engine.Store, the
// storage of Hearth's cluster mode: several Hearth nodes sharing one
// PostgreSQL 15+ database (no extension needed), driven by pgx v5.
//
// # Records
//
// Records live in hearth_kv (k bytea PRIMARY KEY, v bytea). Keys are bytea,
// so they sort bytewise whatever the database's collation (a text key under
// en_US or ICU collation orders "a-b" after "a_b" and breaks prefix scans).
// Scan reads `k >= prefix AND k < successor(prefix) ORDER BY k` in pages of
// at most 128 rows or 4 MiB, the next page starting after the last key seen,
// so a large prefix is never loaded whole; the successor of a prefix ending
// in 0xff bytes drops them before incrementing, and an all-0xff prefix has no
// upper bound.
//
// # Transactions
//
// View runs in a READ ONLY, REPEATABLE READ transaction: one snapshot for
// all its reads. Update runs in a SERIALIZABLE transaction, which matches
// Badger's conflict detection: two read-modify-write transactions, on one
// node or on two, cannot both commit, and neither can a pair that each read
// what the other writes (write skew). PostgreSQL aborts the loser with
// SQLSTATE 40001 (or 40P01 for a deadlock); Update rolls back and runs fn
// again from the start, up to Options.MaxAttempts times with a jittered
// backoff growing from a few milliseconds to 100 ms, then fails with
// SERVICE_UNAVAILABLE. fn must therefore have no side effect outside the
// transaction. Retries are counted (Store.Retries, Options.OnRetry). A
// transaction sends nothing until it reads or commits: its BEGIN, its
// queued writes (Put, PutRaw, Delete, Publish; consecutive puts as one
// multi-row upsert; consecutive SetNew writes, of keys made from fresh ids,
// as one plain multi-row INSERT, with an upsert rerun of the transaction
// should one exist) and the read or the COMMIT go to the server as one
// pipeline, one round trip (tx_queue.go). So an Update that only writes is
// one round trip, each read one, and a write's error surfaces at the next
// read or at the commit. A statement that fails aborts the transaction on
// the server; Update then fails (or retries) even if fn ignored the error.
//
// # Blobs
//
// Blob bytes are cut into 1 MiB parts, zstd-compressed like the Badger
// store's, and kept in hearth_blob_parts (bytea, stored out of line without
// PostgreSQL's own compression), away from the records' table and index.
// PutBlob writes the parts under a fresh generation number without holding
// a transaction open, then one transaction points hearth_blobs at the new
// generation and drops the previous one: readers see the old blob or the new
// one, never a mix or a prefix. Parts of a write cut short are deleted on
// failure, or by SweepBlobParts after a crash.
//
// # Schema
//
// Open applies the missing migrations under a session advisory lock, each in
// its own transaction, and records each version in hearth_schema, so nodes
// starting together migrate once. A binary facing a schema newer than its own
// refuses to open with ErrSchemaTooNew, naming both versions. Migrations are
// append-only.
//
// # Change feed
//
// Nodes keep node-local replicas (search indexes, caches) in step through
// hearth_changes: Publish, called inside an Update, inserts a row naming a
// topic and a key with the writing transaction's id (pg_current_xact_id) and
// a sequence number, and sends a NOTIFY; both take effect only if the
// transaction commits. A change carries no value: the reader reads the
// current record, so replaying a change, or two changes of one key in either
// order, converges.
//
// Sequence numbers are taken at insert time, not at commit: transaction A
// may take seq 10 and B seq 11, B commit first, and a reader that moved its
// cursor to 11 would never see 10. Changes therefore orders the feed by
// (xid, seq) and returns only rows of transactions older than the reading
// snapshot's xmin (pg_snapshot_xmin(pg_current_snapshot())), the oldest
// transaction still running: each of those has ended, so all its rows are
// visible and no row can appear later behind the returned Position. Rows of
// younger transactions, committed or not, wait for a later read (Changes
// reports them as pending, and Follow re-reads after a few milliseconds), so
// one long write transaction anywhere in the database delays the feed until
// it ends. Follow listens on its own connection, reads on every
// notification and at least once per poll interval, since a NOTIFY sent
// while no one listens is lost; a reader stores the Position it applied and
// resumes from it after a restart. TrimChanges drops rows every node has read.
//
// Tests start a throwaway server through package pgtest.
package postgres
