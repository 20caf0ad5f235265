package postgres

import "github.com/jackc/pgx/v5"

// A transaction of Update queues its writes and sends them together, in
// one round trip, before its next read, before it commits, or once it has
// queued pendingRows rows or pendingBytes of values. Consecutive puts of
// distinct keys become one multi-row statement. A write's error (a
// serialization failure, a lost connection) then surfaces at that point
// instead of at the Put; Update fails or retries the transaction as a
// whole either way.
const (
	pendingRows  = 512
	pendingBytes = 4 << 20
)

const (
	upsertOne  = `INSERT INTO hearth_kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`
	upsertMany = `INSERT INTO hearth_kv (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[]) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v`
)

// upserts is a run of queued puts of distinct keys (one statement cannot
// upsert a key twice), in order.
type upserts struct {
	k, v [][]byte
	seen map[string]struct{}
}

// put queues the upsert of key to b, which nothing else may change.
func (t *tx) put(key string, b []byte) error {
	if t.readOnly {
		return errReadOnly
	}
	if b == nil {
		b = []byte{} // pgx sends a nil slice as NULL
	}
	if _, dup := t.run.seen[key]; dup {
		t.endRun()
	}
	if t.run.seen == nil {
		t.run.seen = map[string]struct{}{}
	}
	t.run.seen[key] = struct{}{}
	t.run.k = append(t.run.k, []byte(key))
	t.run.v = append(t.run.v, b)
	return t.queued(len(b))
}

// exec queues a write statement after the puts queued before it.
func (t *tx) exec(size int, sql string, args ...any) error {
	if t.readOnly {
		return errReadOnly
	}
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
	switch len(t.run.k) {
	case 0:
		return
	case 1:
		t.batch.Queue(upsertOne, t.run.k[0], t.run.v[0])
	default:
		t.batch.Queue(upsertMany, t.run.k, t.run.v)
	}
	t.run = upserts{}
}

// flush sends the queued writes in one round trip and returns the first
// error among them (the statements after a failed one fail too: the
// transaction is aborted).
func (t *tx) flush() error {
	t.endRun()
	n := t.batch.Len()
	if n == 0 {
		return nil
	}
	b := t.batch
	t.batch, t.rows, t.bytes = pgx.Batch{}, 0, 0
	t.trips.Add(1)
	br := t.q.SendBatch(t.ctx, &b)
	var first error
	for range n {
		if _, err := br.Exec(); err != nil && first == nil {
			first = err
		}
	}
	if err := br.Close(); err != nil && first == nil {
		first = err
	}
	if first == nil {
		return nil
	}
	return t.check(first)
}
