package engine

import (
	"sync/atomic"
	"testing"
)

// staleCluster is a shared Cluster whose freshness the test sets.
type staleCluster struct {
	Local
	fresh atomic.Bool
}

func (c *staleCluster) Shared() bool { return true }
func (c *staleCluster) Fresh() bool  { return c.fresh.Load() }

// TestGateCacheServesOnlyWhileFresh: in cluster mode a cache neither
// serves nor fills while the node's feed is not fresh, and an entry read
// before an invalidation is never inserted after it.
func TestGateCacheServesOnlyWhileFresh(t *testing.T) {
	cl := &staleCluster{}
	cl.fresh.Store(true)
	c := newGateCache[int](cl)
	_, _, gen := c.get("a")
	c.put(gen, "a", 1, "tag-a")
	if v, ok, _ := c.get("a"); !ok || v != 1 {
		t.Fatalf("fresh: get a = %d %v", v, ok)
	}
	cl.fresh.Store(false)
	if _, ok, _ := c.get("a"); ok {
		t.Fatal("served an entry while not fresh")
	}
	if _, ok, _ := c.getBytes([]byte("a")); ok {
		t.Fatal("getBytes served an entry while not fresh")
	}
	_, _, gen = c.get("b")
	c.put(gen, "b", 2)
	cl.fresh.Store(true)
	if _, ok, _ := c.get("b"); ok {
		t.Fatal("filled while not fresh")
	}
	_, _, gen = c.get("c")
	c.drop("tag-a")
	c.put(gen, "c", 3)
	if _, ok, _ := c.get("c"); ok {
		t.Fatal("inserted a read from before an invalidation")
	}
	if _, ok, _ := c.get("a"); ok {
		t.Fatal("a dropped entry is still served")
	}
	if local := newGateCache[int](&Local{}); local.live != nil {
		t.Fatal("the cache of one process consults the feed")
	}
}
