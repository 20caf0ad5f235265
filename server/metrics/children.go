package metrics

import (
	"sync"
	"sync/atomic"
)

// maxCachedChildren bounds the children a childCache keeps. The label
// values it is asked for are bounded already (route templates, methods,
// statuses, providers, kinds, outcome codes, and at most maxModels models);
// past the bound a child is looked up in its vector each time, as without
// the cache.
const maxCachedChildren = 4096

// childCache keeps the children of one metric vector by their label
// values (up to three). A vector's WithLabelValues checks the values are
// valid UTF-8, hashes them and looks the child up under a lock on every
// call; the cache's lookup is one map read with no lock: the map is
// replaced, never changed, when a child is added. A child, once made, is
// the vector's for good (Hearth never deletes or resets a series), so the
// cache never goes stale. It lives in one process, like the registry it
// points into: several Hearth nodes each export their own series, as
// without the cache.
type childCache[T any] struct {
	vec interface{ WithLabelValues(...string) T }
	// labels is how many of a key's values are the vector's labels, most
	// how many children the cache keeps (maxCachedChildren).
	labels, most int
	m            atomic.Pointer[map[[3]string]T]
	mu           sync.Mutex // held while the map is replaced
}

func newChildCache[T any](vec interface{ WithLabelValues(...string) T }, labels int) *childCache[T] {
	c := &childCache[T]{vec: vec, labels: labels, most: maxCachedChildren}
	c.m.Store(&map[[3]string]T{})
	return c
}

// with returns the child for the first labels values of k.
func (c *childCache[T]) with(k [3]string) T {
	if v, ok := (*c.m.Load())[k]; ok {
		return v
	}
	lvs := k // the vector keeps its values: k itself stays on the stack
	v := c.vec.WithLabelValues(lvs[:c.labels]...)
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.m.Load()
	if _, ok := old[k]; !ok && len(old) < c.most {
		m := make(map[[3]string]T, len(old)+1)
		for ok, ov := range old {
			m[ok] = ov
		}
		m[k] = v
		c.m.Store(&m)
	}
	return v
}

// size is how many children c keeps.
func (c *childCache[T]) size() int { return len(*c.m.Load()) }
