package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/klauspost/compress/zstd"
)

// Options configure a Store.
type Options struct {
	// URL is the connection string, postgres://user:pass@host:port/db?...
	URL string
	// MaxConns caps the pool of connections (0: pgxpool's default, the
	// larger of 4 and the number of CPUs).
	MaxConns int32
	// MaxAttempts bounds how many times Update runs fn when PostgreSQL
	// aborts the transaction for a serialization failure or a deadlock
	// (0: 50). Past it, Update fails with SERVICE_UNAVAILABLE.
	MaxAttempts int
	// OnRetry, when set, is called each time Update retries (a metrics hook).
	OnRetry func()
	Logger  *slog.Logger
}

// Store is an engine.Store on PostgreSQL.
type Store struct {
	opts    Options
	pool    *pgxpool.Pool
	enc     *zstd.Encoder
	dec     *zstd.Decoder
	retries atomic.Uint64
	trips   atomic.Uint64
	once    sync.Once

	heldMu sync.Mutex
	held   map[*heldConn]struct{}
}

// heldConn is a pool connection kept out of the pool by a holder (an
// advisory lock), with the function that gives it back.
type heldConn struct{ release func() }

// closeGrace is how long Close waits for holders of connections (singleton
// work under a cluster lock) to give them back before it releases them.
const closeGrace = 5 * time.Second

var _ engine.Store = (*Store)(nil)

// New returns an unopened store.
func New(opts Options) *Store { return &Store{opts: opts} }

// Open connects, then brings the schema up to date (see Migrate). It fails
// when the database's schema is newer than this binary's (ErrSchemaTooNew).
func (s *Store) Open(ctx context.Context) error {
	cfg, err := pgxpool.ParseConfig(s.opts.URL)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	if s.opts.MaxConns > 0 {
		cfg.MaxConns = s.opts.MaxConns
	}
	if cfg.ConnConfig.Tracer == nil {
		cfg.ConnConfig.Tracer = turnTracer{}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if err := migrate(ctx, pool, migrations); err != nil {
		pool.Close()
		return err
	}
	s.pool = pool
	// The level of blob.PartLevel (this package does not import blob,
	// which brings Badger); parts of any level read alike.
	s.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	s.dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	return nil
}

// Pool exposes the connection pool to the packages that build on this
// store in cluster mode (change feed readers, job leases, advisory locks).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// hold registers a connection taken out of the pool for longer than one
// statement, so Close can give it back when its holder does not; the
// returned function unregisters it (the holder gave it back itself).
func (s *Store) hold(release func()) (done func()) {
	h := &heldConn{release: release}
	s.heldMu.Lock()
	if s.held == nil {
		s.held = map[*heldConn]struct{}{}
	}
	s.held[h] = struct{}{}
	s.heldMu.Unlock()
	return func() {
		s.heldMu.Lock()
		delete(s.held, h)
		s.heldMu.Unlock()
	}
}

// Close closes the pool. pgxpool waits for every acquired connection, so a
// connection still held after closeGrace (a cluster lock whose work did not
// stop) is released here: the lock is freed for the other nodes, and the
// holder's own release becomes a no-op.
func (s *Store) Close() error {
	s.once.Do(func() {
		if s.pool == nil {
			return
		}
		closed := make(chan struct{})
		go func() { s.pool.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(closeGrace):
			s.heldMu.Lock()
			held := make([]*heldConn, 0, len(s.held))
			for h := range s.held {
				held = append(held, h)
			}
			s.heldMu.Unlock()
			if len(held) > 0 {
				s.logger().Warn("closing the database: releasing cluster locks still held", "locks", len(held))
			}
			for _, h := range held {
				h.release()
			}
			<-closed
		}
		s.dec.Close()
	})
	return nil
}

// Retries returns how many times Update has re-run a transaction since
// Open. The count is this process's own: with several nodes on one
// database, each node reports its retries and a dashboard sums them.
func (s *Store) Retries() uint64 { return s.retries.Load() }

// RoundTrips returns how many round trips to PostgreSQL the transactions
// of View and Update and the reads of ReadRawMany have made since Open
// (this process's count; feed reads, locks, counters and blobs are not in
// it). Benchmarks divide it
// by requests.
func (s *Store) RoundTrips() uint64 { return s.trips.Load() }

// The BEGIN statements of View and Update, sent with a transaction's first
// statements (tx_queue.go).
const (
	beginView   = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`
	beginUpdate = `BEGIN ISOLATION LEVEL SERIALIZABLE`
)

// View runs fn in a read-only REPEATABLE READ transaction: every read sees
// the snapshot taken at its first statement. The BEGIN goes with the first
// read, so a View of one read costs two round trips (that read, ROLLBACK).
func (s *Store) View(ctx context.Context, fn func(engine.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return mapErr(err)
	}
	defer c.Release()
	t := &tx{ctx: ctx, c: c, trips: &s.trips, readOnly: true, begin: beginView}
	defer t.rollback()
	return fn(t)
}

// ReadRawMany reads keys in one statement outside any transaction, one
// round trip (engine.DirectReader): the statement sees one snapshot of its
// own.
func (s *Store) ReadRawMany(ctx context.Context, keys []string) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.trips.Add(1)
	out, err := readMany(ctx, s.pool, keys)
	if err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}

var _ engine.DirectReader = (*Store)(nil)

// Update runs fn in a SERIALIZABLE transaction and commits it when fn
// returns nil. Its BEGIN, queued writes and COMMIT go together: an Update
// that only writes is one round trip. PostgreSQL aborts one of two transactions whose reads and
// writes conflict (SQLSTATE 40001, or 40P01 for a deadlock) rather than let
// one lose the other's update; Update then rolls back and runs fn again from
// the start, up to MaxAttempts times with a jittered backoff. So fn must
// have no effect outside the transaction (no channel sends, counters, HTTP
// calls): it may run more than once, and only its last run counts.
func (s *Store) Update(ctx context.Context, fn func(engine.Tx) error) error {
	attempts := s.opts.MaxAttempts
	if attempts <= 0 {
		attempts = 50
	}
	noInsert := false
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		err, retry, exists := s.updateOnce(ctx, fn, noInsert)
		if exists && !noInsert {
			// A key written with SetNew exists: run fn again at once
			// with upserts only.
			noInsert = true
			continue
		}
		if !retry {
			return err
		}
		if attempt >= attempts {
			return engine.Wrap(err, engine.CodeUnavailable, "storage is busy, try again")
		}
		s.retries.Add(1)
		if s.opts.OnRetry != nil {
			s.opts.OnRetry()
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

// updateOnce runs one attempt, with SetNew's writes as upserts when
// noInsert; retry reports a serialization failure, exists a unique
// violation of a SetNew insert.
func (s *Store) updateOnce(ctx context.Context, fn func(engine.Tx) error, noInsert bool) (err error, retry, exists bool) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return mapErr(err), false, false
	}
	defer c.Release()
	t := &tx{ctx: ctx, c: c, trips: &s.trips, begin: beginUpdate, noInsert: noInsert}
	ferr := fn(t)
	if ferr == nil {
		ferr = t.commit()
	}
	if ferr == nil {
		return nil, false, false
	}
	t.rollback()
	// fn may have swallowed the statement error of a conflict; the
	// transaction is aborted either way.
	if t.conflict != nil || isRetryable(ferr) {
		return firstErr(t.conflict, ferr), true, false
	}
	if t.exists != nil {
		return t.exists, false, true
	}
	return ferr, false, false
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// backoff grows from 2 ms to 100 ms with full jitter, so nodes that lost the
// same race do not collide again in step.
func backoff(attempt int) time.Duration {
	d := 2 * time.Millisecond << min(attempt, 6)
	d = min(d, 100*time.Millisecond)
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *Store) logger() *slog.Logger {
	if s.opts.Logger != nil {
		return s.opts.Logger
	}
	return slog.Default()
}
