package engine

import "sync"

// Change-feed topics of the gateway's caches (Cluster.Publish/Subscribe).
const (
	// TopicKey carries the id of an API key that was revoked.
	TopicKey = "key"
	// TopicPipe carries the id of a pipe whose configuration changed or
	// that was deleted (ids never change, names do; pipe keys name pipes
	// by id).
	TopicPipe = "pipe"
)

// gateCacheMax bounds a gateway cache; past it the cache is emptied and
// refills from the store (dropping entries only ever costs a read).
const gateCacheMax = 16384

// gateCache is a map of records read from the store, kept in step by the
// writes that change them. Invalidation runs after the write commits and
// bumps a generation: a reader that started its store read before an
// invalidation finds the generation changed and does not insert what it
// read, so a stale record never outlives the write that replaced it.
//
// In cluster mode (Cluster.Shared) the change feed delivers other nodes'
// writes after they commit, so a node serves what another node changed
// until the feed's event arrives (the feed's lag, milliseconds). live is
// then Cluster.Fresh: while the feed is down, has missed events or has not
// read for a while, the cache neither serves nor fills, and the cluster
// drops every entry (key "") before it reports fresh again.
type gateCache[V any] struct {
	mu   sync.Mutex
	gen  uint64
	m    map[string]V
	live func() bool // nil: always (one process owns the store)
	// tag indexes entries by a second key (a key id, a pipe id) for
	// invalidation; tags[t] lists the map keys tagged t.
	tags  map[string][]string
	ntags int
}

// newGateCache returns a cache for c's mode: always live for one process,
// live while c is fresh when other nodes share the store.
func newGateCache[V any](c Cluster) *gateCache[V] {
	g := &gateCache[V]{m: map[string]V{}, tags: map[string][]string{}}
	if c != nil && c.Shared() {
		g.live = c.Fresh
	}
	return g
}

// stale reports that the cache must not serve or fill now.
func (c *gateCache[V]) stale() bool { return c.live != nil && !c.live() }

// get returns the cached value of k, or the current generation to hand to
// put after reading the store.
func (c *gateCache[V]) get(k string) (v V, ok bool, gen uint64) {
	if c == nil {
		return v, false, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stale() {
		return v, false, c.gen
	}
	v, ok = c.m[k]
	return v, ok, c.gen
}

// getBytes is get for a key built in a caller's buffer: the map lookup
// converts k without copying it, so a hit allocates nothing.
func (c *gateCache[V]) getBytes(k []byte) (v V, ok bool, gen uint64) {
	if c == nil {
		return v, false, 0
	}
	c.mu.Lock()
	if !c.stale() {
		v, ok = c.m[string(k)]
	}
	gen = c.gen
	c.mu.Unlock()
	return v, ok, gen
}

// put stores v under k (tagged with tags) unless an invalidation ran since
// gen was read.
func (c *gateCache[V]) put(gen uint64, k string, v V, tags ...string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen || c.stale() {
		return
	}
	if len(c.m) >= gateCacheMax || c.ntags >= 4*gateCacheMax {
		c.m, c.tags, c.ntags = map[string]V{}, map[string][]string{}, 0
	}
	c.m[k] = v
	for _, t := range tags {
		c.tags[t] = append(c.tags[t], k)
	}
	c.ntags += len(tags)
}

// drop forgets every entry tagged with one of tags; an empty tag forgets
// everything (the feed's "changes may have been missed").
func (c *gateCache[V]) drop(tags ...string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, t := range tags {
		if t == "" {
			c.m, c.tags, c.ntags = map[string]V{}, map[string][]string{}, 0
			return
		}
		for _, k := range c.tags[t] {
			delete(c.m, k)
		}
		c.ntags -= len(c.tags[t])
		delete(c.tags, t)
	}
}
