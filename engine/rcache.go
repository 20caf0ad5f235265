package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Response cache records (see CacheProviders for what is cached; semantic
// mode's index in rcache_semantic.go, what earlier configurations left in
// rcache_leftovers.go):
//
//	rcache/<owner>/<key hash>                 cacheEntry
//	rcacheexp/<expiry ns %020d>/<owner>/<key hash> -> "" (expiry index: sweeps
//	                                          and eviction read the oldest first)
//
// Entries live in the store, so in cluster mode every node reads the
// entries any node wrote. Each node keeps hot copies of the entries it
// served in memory; a write or delete publishes the entry's key under
// TopicResponseCache so the other nodes drop their copy, and hot copies are
// served only while Cluster.Fresh. The entry cap is counted per node
// between sweeps, so a cluster may hold more entries than the cap until the
// next sweep (every CacheSweepInterval, one node at a time) trims it.
const (
	prefixCache    = "rcache/"
	prefixCacheExp = "rcacheexp/"
)

// TopicResponseCache carries "<owner>/<key hash>" of a response cache entry
// that was replaced or deleted.
const TopicResponseCache = "rcache"

const (
	// DefaultCacheTTL is how long an entry answers when the operator sets no TTL.
	DefaultCacheTTL = time.Hour
	// DefaultCacheMaxEntries is the entry cap when the operator sets none.
	DefaultCacheMaxEntries = 10000
	// CacheSweepInterval is how often each node tries to sweep expired
	// entries and trim the cache to its cap.
	CacheSweepInterval = time.Minute
	// cacheMaxEntryBytes bounds one entry; a longer answer is not stored.
	cacheMaxEntryBytes = 1 << 20
	// cacheHotBytes bounds a node's hot copies; past it they are dropped
	// and refill from the store.
	cacheHotBytes = 32 << 20
	// cacheSweepLock is the cluster lock of the node that sweeps.
	cacheSweepLock = "rcache.sweep"
	// cacheDeleteBatch bounds the deletions of one transaction.
	cacheDeleteBatch = 500
)

// ResponseCacheConfig configures a ResponseCache.
type ResponseCacheConfig struct {
	// TTL is how long an entry answers (DefaultCacheTTL when 0).
	TTL time.Duration
	// MaxEntries caps the entries; the oldest go first (DefaultCacheMaxEntries when 0).
	MaxEntries int
	// AllowTemperature caches calls with a temperature above 0 too.
	AllowTemperature bool
	// Semantic, when set, also serves answers to paraphrases (rcache_semantic.go).
	Semantic *SemanticCacheConfig
	// Cluster shares invalidations and the sweep lock (nil: one process).
	Cluster Cluster
	// Logger reports store failures, which never fail a call.
	Logger *slog.Logger
	// Clock dates entries (time.Now when nil).
	Clock func() time.Time
}

// ResponseCache keeps model answers in the store, scoped by owner.
type ResponseCache struct {
	store   Store
	cfg     ResponseCacheConfig
	cluster Cluster
	log     *slog.Logger
	hot     hotEntries
	// semIndex and semID hold semantic mode's embeddings (nil: exact only).
	semIndex SemanticIndex
	semID    string

	mu      sync.Mutex // guards count and counted
	count   int
	counted bool

	stop func()
}

// cacheEntry is one stored answer: a response (non-stream call) or the
// chunks of a stream, as JSON, decoded afresh for each hit.
type cacheEntry struct {
	Created  time.Time         `json:"created"`
	Expires  time.Time         `json:"expires"`
	Model    string            `json:"model"`
	Response json.RawMessage   `json:"response,omitempty"`
	Chunks   []json.RawMessage `json:"chunks,omitempty"`
	// Sem is the context hash under which the entry's last user message
	// was put in the semantic index ("" for none).
	Sem string `json:"sem,omitempty"`
}

func (e *cacheEntry) size() int {
	n := len(e.Response) + 64
	for _, c := range e.Chunks {
		n += len(c)
	}
	return n
}

// NewResponseCache returns a cache over store; Start runs its sweeps.
func NewResponseCache(store Store, cfg ResponseCacheConfig) *ResponseCache {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultCacheTTL
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultCacheMaxEntries
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Semantic != nil && cfg.Semantic.Similarity <= 0 {
		sc := *cfg.Semantic
		sc.Similarity = DefaultCacheSimilarity
		cfg.Semantic = &sc
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var cl Cluster = cfg.Cluster
	if cl == nil {
		cl = &Local{}
	}
	c := &ResponseCache{store: store, cfg: cfg, cluster: cl, log: cfg.Logger}
	if sc := cfg.Semantic; sc != nil {
		if sc.Index == nil {
			c.log.Error("response cache: semantic mode has no index; answering exact lookups only")
		} else {
			c.semIndex, c.semID = sc.Index, SemanticIndexID(sc.Model)
		}
	}
	c.hot.m = map[string]*cacheEntry{}
	if cl.Shared() {
		c.hot.live = cl.Fresh
	}
	cl.Subscribe(TopicResponseCache, func(k string) { c.hot.drop(k) })
	return c
}

// Start sweeps expired entries every interval in the background until Close.
func (c *ResponseCache) Start(interval time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	c.stop = func() { cancel(); <-done }
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if _, _, err := c.Sweep(ctx); err != nil && ctx.Err() == nil {
				c.log.Error("cannot sweep the response cache", "err", err)
			}
		}
	}()
}

// Close stops the sweeps.
func (c *ResponseCache) Close() error {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	return nil
}

func cacheEntryKey(owner, hash string) string { return prefixCache + owner + "/" + hash }

func cacheExpKey(exp time.Time, owner, hash string) string {
	return fmt.Sprintf("%s%020d/%s/%s", prefixCacheExp, exp.UnixNano(), owner, hash)
}

// entryOfExpKey returns the entry key an expiry index key points to.
func entryOfExpKey(k string) (string, bool) {
	rest := strings.TrimPrefix(k, prefixCacheExp)
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "", false
	}
	if _, err := strconv.ParseInt(rest[:i], 10, 64); err != nil {
		return "", false
	}
	return prefixCache + rest[i+1:], true
}

// lookup returns the live entry of owner's hash, from the hot copies or
// the store.
func (c *ResponseCache) lookup(ctx context.Context, owner, hash string) (*cacheEntry, bool, error) {
	k := cacheEntryKey(owner, hash)
	now := c.cfg.Clock()
	e, ok, gen := c.hot.get(k)
	if ok {
		if now.Before(e.Expires) {
			return e, true, nil
		}
		return nil, false, nil
	}
	var got cacheEntry
	err := c.store.View(ctx, func(tx Tx) error { return tx.Get(k, &got) })
	if IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !now.Before(got.Expires) {
		return nil, false, nil
	}
	c.hot.put(gen, k, &got)
	return &got, true, nil
}

// save stores an answer for owner's hash, replacing an older one, then
// trims the cache to its cap. A non-nil vec puts the entry in the semantic
// index under its context hash e.Sem.
func (c *ResponseCache) save(ctx context.Context, owner, hash string, e *cacheEntry, vec []float32) error {
	if e.size() > cacheMaxEntryBytes {
		return nil
	}
	now := c.cfg.Clock()
	e.Created, e.Expires = now, now.Add(c.cfg.TTL)
	k := cacheEntryKey(owner, hash)
	var added bool
	var oldSem string
	err := c.store.Update(ctx, func(tx Tx) error {
		added, oldSem = true, ""
		var old cacheEntry
		switch err := tx.Get(k, &old); {
		case err == nil:
			added, oldSem = false, old.Sem
			if err := tx.Delete(cacheExpKey(old.Expires, owner, hash)); err != nil {
				return err
			}
		case !IsNotFound(err):
			return err
		}
		if err := tx.Put(k, e); err != nil {
			return err
		}
		if err := tx.PutRaw(cacheExpKey(e.Expires, owner, hash), []byte{}); err != nil {
			return err
		}
		return c.cluster.Publish(tx, TopicResponseCache, owner+"/"+hash)
	})
	if err != nil {
		return err
	}
	c.hot.drop(owner + "/" + hash)
	c.indexSemItem(ctx, owner, hash, e.Sem, oldSem, vec)
	if !added {
		return nil
	}
	return c.grew(ctx)
}

// grew counts a new entry and evicts the oldest ones when the count passes
// the cap: down to nine tenths of it, so a full cache does not scan the
// index on every write.
func (c *ResponseCache) grew(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.counted {
		n, err := c.countEntries(ctx)
		if err != nil {
			return err
		}
		c.count, c.counted = n, true
	} else {
		c.count++
	}
	if c.count <= c.cfg.MaxEntries {
		return nil
	}
	target := c.cfg.MaxEntries - c.cfg.MaxEntries/10
	if target >= c.cfg.MaxEntries {
		target = c.cfg.MaxEntries - 1
	}
	n, err := c.deleteOldest(ctx, time.Time{}, c.count-target)
	c.count -= n
	return err
}

// countEntries counts the expiry index.
func (c *ResponseCache) countEntries(ctx context.Context) (int, error) {
	n := 0
	err := c.store.View(ctx, func(tx Tx) error {
		return tx.Scan(prefixCacheExp, "", func(string, []byte) error { n++; return nil })
	})
	return n, err
}

// deleteOldest deletes the entries that expire first: every one expired
// at before (when not zero), and at least n.
func (c *ResponseCache) deleteOldest(ctx context.Context, before time.Time, n int) (int, error) {
	var limit string
	if !before.IsZero() {
		limit = cacheExpKey(before, "", "")
	}
	deleted := 0
	for {
		var keys []string
		err := c.store.View(ctx, func(tx Tx) error {
			return tx.Scan(prefixCacheExp, "", func(k string, _ []byte) error {
				if len(keys) == cacheDeleteBatch || (deleted+len(keys) >= n && (limit == "" || k >= limit)) {
					return ErrStopScan
				}
				keys = append(keys, k)
				return nil
			})
		})
		if err != nil || len(keys) == 0 {
			return deleted, err
		}
		if err := c.deleteExp(ctx, keys); err != nil {
			return deleted, err
		}
		deleted += len(keys)
	}
}

// deleteExp deletes the entries of expiry index keys and tells the other
// nodes to drop their hot copies; then it removes the entries' items from
// the semantic index.
func (c *ResponseCache) deleteExp(ctx context.Context, keys []string) error {
	entries := make([]string, 0, len(keys))
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		ek, ok := entryOfExpKey(k)
		if !ok {
			return fmt.Errorf("rcache: malformed expiry key %q", k)
		}
		entries, ids = append(entries, ek), append(ids, strings.TrimPrefix(ek, prefixCache))
	}
	var items []string
	err := c.store.Update(ctx, func(tx Tx) error {
		items = items[:0]
		for i, k := range keys {
			if c.semIndex != nil {
				var e cacheEntry
				switch err := tx.Get(entries[i], &e); {
				case err == nil && e.Sem != "":
					j := strings.LastIndexByte(ids[i], '/')
					items = append(items, semScope(ids[i][:j], e.Sem)+ids[i][j+1:])
				case err != nil && !IsNotFound(err):
					return err
				}
			}
			if err := tx.Delete(k); err != nil {
				return err
			}
			if err := tx.Delete(entries[i]); err != nil {
				return err
			}
			if err := c.cluster.Publish(tx, TopicResponseCache, ids[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.hot.drop(ids...)
	c.removeSemItems(ctx, items)
	return nil
}

// Sweep deletes expired entries and trims the cache to its cap, under the
// cluster lock rcache.sweep (ran is false when another node holds it).
func (c *ResponseCache) Sweep(ctx context.Context) (deleted int, ran bool, err error) {
	release, ok, err := c.cluster.TryLock(ctx, cacheSweepLock)
	if err != nil || !ok {
		return 0, false, err
	}
	defer release()
	c.mu.Lock()
	defer c.mu.Unlock()
	deleted, err = c.deleteOldest(ctx, c.cfg.Clock(), 0)
	if err != nil {
		return deleted, true, err
	}
	n, err := c.countEntries(ctx)
	if err != nil {
		return deleted, true, err
	}
	if n > c.cfg.MaxEntries {
		d, err := c.deleteOldest(ctx, time.Time{}, n-c.cfg.MaxEntries)
		deleted, n = deleted+d, n-d
		if err != nil {
			return deleted, true, err
		}
	}
	c.count, c.counted = n, true
	return deleted, true, nil
}

// Len counts the stored entries (expired ones included until a sweep).
func (c *ResponseCache) Len(ctx context.Context) (int, error) { return c.countEntries(ctx) }
