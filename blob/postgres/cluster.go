package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// ClusterOptions tune a Cluster.
type ClusterOptions struct {
	// Follow tunes the change feed reader (see FollowOptions).
	Follow FollowOptions
	// KeepChanges is how long feed rows are kept before the periodic trim
	// deletes them (0: 10 minutes). A node that lost its feed connection
	// for longer than this may have missed changes; it tells every
	// subscriber to reload (key "") after any reconnect anyway.
	KeepChanges time.Duration
	// Maintain is how often a node tries to trim the feed and delete
	// expired counters, one node at a time under a cluster lock (0: 1 minute).
	Maintain time.Duration
	// StaleAfter is how long after its last successful read of the feed a
	// node stops reporting Fresh (0: three times Follow.Poll, so 3s), so
	// that its caches stop serving when the feed stalls without an error.
	StaleAfter time.Duration
	Logger     *slog.Logger
}

// Cluster is the engine.Cluster of the nodes that share one PostgreSQL
// database: session advisory locks, the change feed (hearth_changes) and
// window counters in hearth_counters. One process opens one Cluster over its
// Store; Close stops its goroutines.
type Cluster struct {
	s    *Store
	node string
	opts ClusterOptions
	log  *slog.Logger

	mu   sync.Mutex
	subs map[string][]func(string)

	// up is true from the first successful read of the feed until an
	// error; gap is set by an error and cleared, after every subscriber
	// was told to reload, by the next successful read. readAt is when the
	// last successful read started, as time since epoch (monotonic).
	up     atomic.Bool
	gap    bool // only the follow goroutine uses it
	readAt atomic.Int64
	epoch  time.Time

	cancel context.CancelFunc
	done   sync.WaitGroup
}

var _ engine.Cluster = (*Cluster)(nil)

// Names of the cluster locks of the maintenance work.
const (
	lockTrimFeed     = "hearth.postgres.trim-changes"
	lockTrimCounters = "hearth.postgres.trim-counters"
)

// NewCluster starts the cluster of this process over an open store: its
// feed reader starts at the feed's current end (changes committed before
// now are in the store already) and its maintenance loop trims the feed and
// the counters.
func NewCluster(ctx context.Context, s *Store, opts ClusterOptions) (*Cluster, error) {
	if opts.KeepChanges <= 0 {
		opts.KeepChanges = 10 * time.Minute
	}
	if opts.Maintain <= 0 {
		opts.Maintain = time.Minute
	}
	if opts.StaleAfter <= 0 {
		poll := opts.Follow.Poll
		if poll <= 0 {
			poll = time.Second
		}
		opts.StaleAfter = 3 * poll
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	var from Position
	if err := s.pool.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&from.Xid); err != nil {
		return nil, mapErr(err)
	}
	c := &Cluster{s: s, node: nodeName(), opts: opts, log: log, subs: map[string][]func(string){}, epoch: time.Now()}
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.done.Add(2)
	go c.follow(runCtx, from)
	go c.maintain(runCtx)
	return c, nil
}

// nodeName is the host name and a random suffix, unique per process.
func nodeName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "node"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return host + "-" + hex.EncodeToString(b)
}

// Close stops the feed reader and the maintenance loop.
func (c *Cluster) Close() error {
	c.cancel()
	c.done.Wait()
	return nil
}

// Shared reports true: other nodes write the same database.
func (c *Cluster) Shared() bool { return true }

// Node is this process's name: its host name and a random suffix.
func (c *Cluster) Node() string { return c.node }

// lockID maps a lock name to the bigint key of PostgreSQL's advisory locks.
// The migration lock uses a fixed key with "hearth" in its high bytes; a
// 64-bit FNV hash of a name collides with it or another name with
// negligible probability.
func lockID(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// TryLock takes the session advisory lock of name on a connection of the
// pool, held until release (which unlocks and returns the connection). If
// this process dies or its connection drops, PostgreSQL frees the lock.
func (c *Cluster) TryLock(ctx context.Context, name string) (func(), bool, error) {
	conn, err := c.s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, mapErr(err)
	}
	id := lockID(name)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, id).Scan(&ok); err != nil {
		conn.Release()
		return nil, false, mapErr(err)
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	var once sync.Once
	var unhold func()
	release := func() {
		once.Do(func() {
			uctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, id); err != nil {
				// A connection that may still hold the lock must not go
				// back to the pool: closing it frees the lock.
				_ = conn.Conn().Close(uctx)
			}
			conn.Release()
			unhold()
		})
	}
	unhold = c.s.hold(release)
	return release, true, nil
}

// Publish records the change in tx (see the package function Publish).
func (c *Cluster) Publish(tx engine.Tx, topic, key string) error { return Publish(tx, topic, key) }

// Subscribe registers fn for the changes of topic. Changes are read in
// commit order by one goroutine per process and handed to fn on it, so fn
// must return quickly. This node's own changes are delivered too (the feed
// does not record which node wrote a change); subscribers re-read the
// store, so that costs a read and changes nothing.
func (c *Cluster) Subscribe(topic string, fn func(key string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs[topic] = append(c.subs[topic], fn)
}

// Fresh reports whether the feed is connected, has missed nothing since
// the subscribers were last told to reload, and last read less than
// StaleAfter ago (that read handed over every change of the transactions
// that had ended by then, unless an older one was still running). The
// gateway's caches serve only while it is true.
func (c *Cluster) Fresh() bool {
	return c.up.Load() && time.Since(c.epoch)-time.Duration(c.readAt.Load()) < c.opts.StaleAfter
}

// read records a successful read of the feed that started at started; the
// first one after an error tells every subscriber to reload first.
func (c *Cluster) read(started time.Time) {
	if c.gap {
		c.reloadAll()
		c.gap = false
	}
	c.readAt.Store(int64(started.Sub(c.epoch)))
	c.up.Store(true)
}

// lost records that the feed failed: changes may be missed from now until
// the next successful read, so Fresh is false until then.
func (c *Cluster) lost() {
	c.up.Store(false)
	c.gap = true
}

// dispatch hands a change to the subscribers of its topic.
func (c *Cluster) dispatch(topic, key string) {
	c.mu.Lock()
	fns := c.subs[topic]
	c.mu.Unlock()
	for _, fn := range fns {
		fn(key)
	}
}

// reloadAll tells every subscriber that changes may have been missed.
func (c *Cluster) reloadAll() {
	c.mu.Lock()
	var fns []func(string)
	for _, l := range c.subs {
		fns = append(fns, l...)
	}
	c.mu.Unlock()
	for _, fn := range fns {
		fn("")
	}
}

// follow reads the feed until ctx ends. After an error it stops reporting
// Fresh at once, waits, and resumes from the last position it dispatched;
// its first successful read then tells every subscriber to reload (changes
// may have been trimmed meanwhile) before Fresh is true again.
func (c *Cluster) follow(ctx context.Context, from Position) {
	defer c.done.Done()
	pos := from
	wait := 100 * time.Millisecond
	opts := c.opts.Follow
	opts.OnRead = c.read
	for {
		err := c.s.Follow(ctx, pos, opts, func(changes []Change, next Position) error {
			for _, ch := range changes {
				c.dispatch(ch.Topic, ch.Key)
			}
			pos = next
			wait = 100 * time.Millisecond
			return nil
		})
		c.lost()
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("cluster change feed: reconnecting", "err", err, "in", wait)
		if sleep(ctx, wait) != nil {
			return
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// maintain trims the feed and the counters every Maintain, on one node at a
// time.
func (c *Cluster) maintain(ctx context.Context) {
	defer c.done.Done()
	t := time.NewTicker(c.opts.Maintain)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := c.Maintain(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("cluster maintenance", "err", err)
		}
	}
}

// Maintain deletes feed rows older than KeepChanges and counters whose
// window has ended, each under its cluster lock (a node that finds a lock
// taken skips that part: another node is doing it).
func (c *Cluster) Maintain(ctx context.Context) error {
	var errs []error
	for _, job := range []struct {
		lock, sql string
		args      []any
	}{
		{lockTrimFeed, `DELETE FROM hearth_changes WHERE at < now() - make_interval(secs => $1)`, []any{c.opts.KeepChanges.Seconds()}},
		{lockTrimCounters, `DELETE FROM hearth_counters WHERE expires_at < now()`, nil},
	} {
		release, ok, err := c.TryLock(ctx, job.lock)
		if err != nil || !ok {
			errs = append(errs, err)
			continue
		}
		_, err = c.s.pool.Exec(ctx, job.sql, job.args...)
		release()
		errs = append(errs, mapErr(err))
	}
	return errors.Join(errs...)
}
