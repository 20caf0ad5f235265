package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// A transaction sends nothing until it first reads or commits: its BEGIN,
// the writes it has queued and the read (or the COMMIT) go together, in
// one round trip, so a transaction that only writes costs one round trip
// and one that reads first costs one more than its reads. Writes are also
// sent once pendingRows rows or pendingBytes of values are queued.
// Consecutive puts of distinct keys become one multi-row statement. A
// write's error (a serialization failure, a lost connection) then
// surfaces at that point instead of at the Put; Update fails or retries
// the transaction as a whole either way.
const (
	pendingRows  = 512
	pendingBytes = 4 << 20
)

// Keys written with SetNew go as plain INSERTs, without ON CONFLICT: its
// check of the key before each row is about a fifth of its cost. Should one
// of those keys exist after all, the INSERT fails the transaction with a
// unique violation and Update runs it again with every SetNew an upsert
// (tx.noInsert), so SetNew has Put's effect either way.
const (
	upsertOne  = `INSERT INTO hearth_kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`
	upsertMany = `INSERT INTO hearth_kv (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`
	insertOne  = `INSERT INTO hearth_kv (k, v) VALUES ($1, $2)`
	insertMany = `INSERT INTO hearth_kv (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[])`
)

// upserts is a run of queued puts of distinct keys (one statement cannot
// upsert a key twice), in order; insert marks a run of SetNew's plain
// inserts.
type upserts struct {
	k, v   [][]byte
	seen   map[string]struct{}
	insert bool
}

var errAborted = errors.New("postgres store: transaction aborted by an earlier failed statement")

// start queues the transaction's BEGIN ahead of its first statement.
func (t *tx) start() {
	if t.begin != "" {
		t.batch.Queue(t.begin)
		t.begin = ""
	}
}

// started reports whether BEGIN has been queued or sent.
func (t *tx) started() bool { return t.begin == "" }

// put queues the upsert of key to b, which nothing else may change.
func (t *tx) put(key string, b []byte) error {
	return t.queue([]byte(key), b, false)
}

// SetNew queues the write of key to value, a key its caller has just made
// from a fresh random id, as a plain INSERT (engine.NewKeySetter). Both
// slices are kept until the transaction ends.
func (t *tx) SetNew(key, value []byte) error {
	if t.noInsert {
		return t.queue(key, value, false)
	}
	t.inserted = true
	return t.queue(key, value, true)
}

// queue adds the write of key to b to the run of puts, as an insert or
// an upsert; a run holds one kind and each key once.
func (t *tx) queue(key, b []byte, insert bool) error {
	if t.readOnly {
		return errReadOnly
	}
	t.start()
	if b == nil {
		b = []byte{} // pgx sends a nil slice as NULL
	}
	if _, dup := t.run.seen[string(key)]; dup || (len(t.run.k) > 0 && t.run.insert != insert) {
		t.endRun()
	}
	if t.run.seen == nil {
		t.run.seen = map[string]struct{}{}
	}
	t.run.seen[string(key)] = struct{}{}
	t.run.insert = insert
	t.run.k = append(t.run.k, key)
	t.run.v = append(t.run.v, b)
	return t.queued(len(b))
}

// exec queues a write statement after the puts queued before it.
func (t *tx) exec(size int, sql string, args ...any) error {
	if t.readOnly {
		return errReadOnly
	}
	t.start()
	t.endRun()
	t.batch.Queue(sql, args...)
	return t.queued(size)
}

// queued counts a queued row and sends the queue when it is full.
func (t *tx) queued(size int) error {
	t.rows++
	t.bytes += size
	if t.rows >= pendingRows || t.bytes >= pendingBytes {
		return t.flush()
	}
	return nil
}

// endRun moves the run of puts into the batch as one statement.
func (t *tx) endRun() {
	one, many := upsertOne, upsertMany
	if t.run.insert {
		one, many = insertOne, insertMany
	}
	switch len(t.run.k) {
	case 0:
		return
	case 1:
		t.batch.Queue(one, t.run.k[0], t.run.v[0])
	default:
		t.batch.Queue(many, t.run.k, t.run.v)
	}
	t.run = upserts{}
}

// flush sends the queued statements in one round trip and returns the
// first error among them (the statements after a failed one fail too: the
// transaction is aborted).
func (t *tx) flush() error { return t.send(nil, "") }

// read sends the queued statements and then the query sql, in one round
// trip, and hands the query's rows to scan.
func (t *tx) read(scan func(pgx.Rows) error, sql string, args ...any) error {
	t.start()
	return t.send(scan, sql, args...)
}

// commit sends the queued statements and COMMIT in one round trip; a
// transaction that never queued anything sends nothing.
func (t *tx) commit() error {
	if !t.started() {
		return nil
	}
	if t.c.Conn().PgConn().TxStatus() == 'E' {
		// fn swallowed the error of a failed statement: COMMIT would
		// answer ROLLBACK without an error.
		return errAborted
	}
	t.endRun()
	t.batch.Queue("COMMIT")
	return t.send(nil, "")
}

// rollback ends a transaction that did not commit, when its BEGIN reached
// the server (queued statements are dropped unsent).
func (t *tx) rollback() {
	if t.c.Conn().PgConn().TxStatus() == 'I' {
		return
	}
	t.trips.Add(1)
	_, _ = t.c.Exec(context.WithoutCancel(t.ctx), "ROLLBACK")
}

// send sends the queued statements, then sql when it is not empty, whose
// rows scan reads, in one round trip.
func (t *tx) send(scan func(pgx.Rows) error, sql string, args ...any) error {
	t.endRun()
	n := t.batch.Len()
	if sql != "" {
		t.batch.Queue(sql, args...)
	}
	if t.batch.Len() == 0 {
		return nil
	}
	b := t.batch
	t.batch, t.rows, t.bytes = pgx.Batch{}, 0, 0
	t.trips.Add(1)
	br := t.c.SendBatch(t.ctx, &b)
	var first error
	for range n {
		if _, err := br.Exec(); err != nil && first == nil {
			first = err
		}
	}
	if sql != "" && first == nil {
		rs, err := br.Query()
		if err == nil {
			err = scan(rs)
			rs.Close()
			if err == nil {
				err = rs.Err()
			}
		}
		first = err
	}
	if err := br.Close(); err != nil && first == nil {
		first = err
	}
	if first == nil {
		return nil
	}
	return t.check(first)
}
