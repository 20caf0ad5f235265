package engine

import (
	"context"
	"sync"
	"time"
)

// Cluster is what a node shares with the other nodes that serve the same
// store. The embedded default (Badger, one process owns the data dir) uses
// Local, which is free: no lock, feed or counter leaves the process. Cluster
// mode (several nodes on one PostgreSQL database, HEARTH_DATABASE_URL)
// implements it in blob/postgres with advisory locks, the change feed and
// shared counters.
//
// Rules for code that runs on every node: anything kept in one process's
// memory (a cache, a graph, a counter) is a replica of what the store
// holds, brought up to date by Subscribe or by re-reading the store; work
// that must run once runs under TryLock or claims a record with a lease.
type Cluster interface {
	// Shared reports whether other processes may write the same store.
	// Code that assumes it is the only writer (for example resuming jobs
	// found "running" at start) checks it.
	Shared() bool
	// Node names this node, unique among the live nodes (leases, logs).
	Node() string
	// TryLock takes the cluster-wide lock name when no node holds it; ok
	// is false when another holder has it. The lock lasts until release
	// is called or this node dies.
	TryLock(ctx context.Context, name string) (release func(), ok bool, err error)
	// Publish records in tx, the transaction of an Update on the cluster's
	// store, that key changed under topic. The change commits or rolls
	// back with tx; subscribers on every other node are called after it
	// commits. A single process updates its own state as it writes, so
	// Local records nothing.
	Publish(tx Tx, topic, key string) error
	// Subscribe calls fn, on a goroutine of the cluster, with the key of
	// every change published under topic by another node from now on. A
	// key of "" means changes may have been missed (the feed reconnected
	// or fell too far behind): drop or re-read everything of the topic.
	Subscribe(topic string, fn func(key string))
	// Fresh reports whether this node's subscribers are in step with the
	// other nodes' writes: the feed is connected, has missed nothing since
	// it last told them to reload, and has read recently. Caches of store
	// records serve and fill only while it is true, so a node whose feed
	// fails or stalls reads the store instead of serving what it missed.
	Fresh() bool
	// Count adds n to the counter key for the current window (windows are
	// aligned to multiples of window since the Unix epoch) and returns the
	// window's total over every node.
	Count(ctx context.Context, key string, window time.Duration, n int64) (int64, error)
}

// Local is the Cluster of one process: locks are in-process, Publish and
// Subscribe do nothing (there is no other node to tell), counters live in
// memory. Its zero value is ready to use.
type Local struct {
	mu      sync.Mutex
	locks   map[string]bool
	windows map[string]localWindow
}

type localWindow struct {
	start time.Time
	n     int64
}

var _ Cluster = (*Local)(nil)

// Shared reports false: one process owns the store.
func (l *Local) Shared() bool { return false }

// Node is "local".
func (l *Local) Node() string { return "local" }

// TryLock takes an in-process lock.
func (l *Local) TryLock(_ context.Context, name string) (func(), bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.locks == nil {
		l.locks = map[string]bool{}
	}
	if l.locks[name] {
		return nil, false, nil
	}
	l.locks[name] = true
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.locks, name)
			l.mu.Unlock()
		})
	}, true, nil
}

// Publish records nothing: this process already updates its own state.
func (l *Local) Publish(Tx, string, string) error { return nil }

// Subscribe never calls fn: no other node writes the store.
func (l *Local) Subscribe(string, func(string)) {}

// Fresh reports true: this process sees its own writes as it makes them.
func (l *Local) Fresh() bool { return true }

// Count keeps the counter in memory. Expired windows are dropped when the
// map grows past 4096 counters, so its size follows the live keys.
func (l *Local) Count(_ context.Context, key string, window time.Duration, n int64) (int64, error) {
	now := time.Now()
	start := now.Truncate(window)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.windows == nil {
		l.windows = map[string]localWindow{}
	}
	if len(l.windows) > 4096 {
		for k, w := range l.windows {
			if w.start.Add(window).Before(now) {
				delete(l.windows, k)
			}
		}
	}
	w := l.windows[key]
	if !w.start.Equal(start) {
		w = localWindow{start: start}
	}
	w.n += n
	l.windows[key] = w
	return w.n, nil
}
