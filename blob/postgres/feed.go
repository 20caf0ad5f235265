package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// feedChannel is the LISTEN/NOTIFY channel that wakes feed readers.
const feedChannel = "hearth_changes"

// Position is a place in the change feed: every change before it has been
// read. The zero Position is the start of the feed.
type Position struct {
	// Xid is the id of the writing transaction (the 64-bit xid8, epoch
	// included); Seq orders the changes of one transaction.
	Xid int64 `json:"xid"`
	Seq int64 `json:"seq"`
}

func (p Position) less(q Position) bool { return p.Xid < q.Xid || p.Xid == q.Xid && p.Seq < q.Seq }

// Change says that Key changed under Topic. It carries no value: a reader
// reads the current record, so applying a change twice, or two changes of one
// key in either order, ends in the same state.
type Change struct {
	Pos   Position
	Topic string
	Key   string
}

// Publish records in tx, the transaction of an Update on this store, that
// key changed under topic, and wakes the feed's readers when tx commits. The
// change commits or rolls back with the data, so readers never see a change
// without its data, nor data without its change.
func Publish(t engine.Tx, topic, key string) error {
	pt, ok := t.(*tx)
	if !ok {
		return fmt.Errorf("postgres.Publish: %T is not a transaction of this store", t)
	}
	err := pt.exec(len(key), `INSERT INTO hearth_changes (xid, topic, key) VALUES (pg_current_xact_id()::text::bigint, $1, $2)`, topic, []byte(key))
	if err != nil {
		return err
	}
	return pt.exec(0, `SELECT pg_notify($1, '')`, feedChannel)
}

// Changes returns up to limit changes after from, in (Xid, Seq) order, and
// the position to read from next. A feed ordered by a sequence alone skips
// changes: transaction A can take seq 10 and B seq 11, and B commit first; a
// reader that applied 11 never sees 10. Changes instead returns only the
// changes of transactions older than the oldest one still running (the
// snapshot's xmin): those have all ended, so every change they made is
// visible and none can appear later before the returned position. Changes of
// younger transactions wait for the next call; pending reports that some
// are already committed and waiting so (the caller should poll again soon).
func (s *Store) Changes(ctx context.Context, from Position, limit int) (changes []Change, next Position, pending bool, err error) {
	next = from
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(ptx pgx.Tx) error {
		var xmin int64
		if err := ptx.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&xmin); err != nil {
			return err
		}
		rows, err := ptx.Query(ctx, `SELECT xid, seq, topic, key FROM hearth_changes
			WHERE (xid, seq) > ($1, $2) AND xid < $3 ORDER BY xid, seq LIMIT $4`, from.Xid, from.Seq, xmin, limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var c Change
			var key []byte
			if err := rows.Scan(&c.Pos.Xid, &c.Pos.Seq, &c.Topic, &key); err != nil {
				rows.Close()
				return err
			}
			c.Key = string(key)
			changes = append(changes, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(changes) == limit {
			next = changes[len(changes)-1].Pos
			return nil
		}
		// Every transaction below xmin has been read in full.
		if p := (Position{Xid: xmin}); next.less(p) {
			next = p
		}
		return ptx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM hearth_changes WHERE xid >= $1)`, xmin).Scan(&pending)
	})
	if err != nil {
		return nil, from, false, mapErr(err)
	}
	return changes, next, pending, nil
}

// FollowOptions tune Follow.
type FollowOptions struct {
	// Batch is the most changes handed to fn at once (0: 500).
	Batch int
	// Poll is how long Follow waits for a notification before it reads the
	// feed anyway (0: 1s); NOTIFY is only a wake-up and is lost while no
	// connection listens.
	Poll time.Duration
	// Pending is how soon Follow reads again while committed changes wait
	// behind an older running transaction (0: 10ms).
	Pending time.Duration
	// OnRead, when set, is called after each read of the feed that
	// succeeded (and after fn handled what it returned), with the time the
	// read started: every change of a transaction that had ended by then
	// and was not behind an older running one has been handed to fn.
	OnRead func(started time.Time)
}

// Follow reads the feed from `from` until ctx ends or fn fails, calling fn
// with each batch of changes and the position after it; the caller stores
// that position with its applied state so that, after a restart or a lost
// connection, it calls Follow again from there. It listens on its own
// connection and reads whenever a writer commits, at least every Poll.
func (s *Store) Follow(ctx context.Context, from Position, opts FollowOptions, fn func(changes []Change, next Position) error) error {
	if opts.Batch <= 0 {
		opts.Batch = 500
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Pending <= 0 {
		opts.Pending = 10 * time.Millisecond
	}
	conn, err := s.listen(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	pos := from
	for {
		started := time.Now()
		changes, next, pending, err := s.Changes(ctx, pos, opts.Batch)
		if err != nil {
			return err
		}
		if len(changes) > 0 || pos != next {
			if err := fn(changes, next); err != nil {
				return err
			}
			pos = next
		}
		if opts.OnRead != nil {
			opts.OnRead(started)
		}
		if len(changes) == opts.Batch {
			continue
		}
		wait := opts.Poll
		if pending {
			wait = opts.Pending
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		_, err = conn.WaitForNotification(wctx)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return mapErr(err)
		}
	}
}

// TrimChanges deletes the changes before pos, once every node has read past
// it (the caller knows the slowest node's position). It returns how many it
// deleted.
func (s *Store) TrimChanges(ctx context.Context, pos Position) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM hearth_changes WHERE (xid, seq) < ($1, $2)`, pos.Xid, pos.Seq)
	if err != nil {
		return 0, mapErr(err)
	}
	return tag.RowsAffected(), nil
}

// listen opens a connection of its own, outside the pool, that LISTENs to
// the feed. Waiting for a notification with a timeout must not send the
// server a cancel request each time (pgx's default), so a timeout only ends
// the wait.
func (s *Store) listen(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(s.opts.URL)
	if err != nil {
		return nil, err
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, mapErr(err)
	}
	if _, err := conn.Exec(ctx, `LISTEN `+feedChannel); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, mapErr(err)
	}
	return conn, nil
}
