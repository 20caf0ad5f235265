package engine

import "sync"

// hotEntries are a node's in-memory copies of response cache entries it
// read from the store. Invalidation bumps a generation, so a reader whose
// store read began before an invalidation does not insert what it read.
// In cluster mode live is Cluster.Fresh: while the change feed is not in
// step the copies are neither served nor filled.
type hotEntries struct {
	mu    sync.Mutex
	gen   uint64
	m     map[string]*cacheEntry
	bytes int
	live  func() bool
}

func (h *hotEntries) stale() bool { return h.live != nil && !h.live() }

// get returns the copy of k, or the generation to hand to put.
func (h *hotEntries) get(k string) (*cacheEntry, bool, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stale() {
		return nil, false, h.gen
	}
	e, ok := h.m[k]
	return e, ok, h.gen
}

// put keeps e under k unless an invalidation ran since gen; past
// cacheHotBytes every copy is dropped first.
func (h *hotEntries) put(gen uint64, k string, e *cacheEntry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen || h.stale() {
		return
	}
	n := e.size()
	if h.bytes+n > cacheHotBytes {
		h.m, h.bytes = map[string]*cacheEntry{}, 0
	}
	if old, ok := h.m[k]; ok {
		h.bytes -= old.size()
	}
	h.m[k] = e
	h.bytes += n
}

// drop forgets the copies of keys ("<owner>/<hash>", as the feed carries
// them); "" forgets every copy.
func (h *hotEntries) drop(keys ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	for _, k := range keys {
		if k == "" {
			h.m, h.bytes = map[string]*cacheEntry{}, 0
			return
		}
		k = prefixCache + k
		if e, ok := h.m[k]; ok {
			h.bytes -= e.size()
			delete(h.m, k)
		}
	}
}
