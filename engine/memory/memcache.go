package memory

import (
	"context"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// TopicMemory is the engine.Cluster topic published, in the same
// transaction, whenever a memory record is created, changed or deleted;
// key: the record's store key. In cluster mode every other node drops
// that record from its cache when it hears of it, and every record ("" key)
// after a feed reconnect.
const TopicMemory = "memory"

// memCache keeps the stored bytes of the memory records retrieval reads,
// by store key, so a search does not read its memories from the store each
// time. A write drops its record on this node once it commits and on the
// others when their feed delivers it (TopicMemory); a generation counter
// keeps a record read before an invalidation from being stored after it.
// Entries serve and fill only while the node's feed is fresh
// (engine.Cluster.Fresh; always with one process).
type memCache struct {
	mu   sync.Mutex
	recs map[string][]byte
	gen  uint64
}

// maxCachedMemories bounds the cache; it is emptied when full.
const maxCachedMemories = 4096

func (c *memCache) invalidate(key string) {
	c.mu.Lock()
	delete(c.recs, key)
	c.gen++
	c.mu.Unlock()
}

func (c *memCache) invalidateAll() {
	c.mu.Lock()
	c.recs = nil
	c.gen++
	c.mu.Unlock()
}

// memoryChanged records in tx that the memory record of owner/name changes
// with it (the other nodes drop it from their caches); the writer calls
// memoryWritten once tx committed.
func (s *Service) memoryChanged(tx engine.Tx, owner, name string) error {
	return s.cluster.Publish(tx, TopicMemory, memoryKey(owner, name))
}

// memoryWritten drops this node's cached record of owner/name after a
// write of it committed (or may have).
func (s *Service) memoryWritten(owner, name string) {
	s.memcache.invalidate(memoryKey(owner, name))
}

// followMemories subscribes the cache to the other nodes' memory writes.
func (s *Service) followMemories() {
	s.cluster.Subscribe(TopicMemory, func(key string) {
		if key == "" {
			s.memcache.invalidateAll()
			return
		}
		s.memcache.invalidate(key)
	})
}

// readMemoryRecords returns the stored bytes of each key (nil: no such
// memory): cached ones from the cache, the others in one read at one
// instant (one round trip on PostgreSQL, outside any transaction).
func (s *Service) readMemoryRecords(ctx context.Context, keys []string) ([][]byte, error) {
	c := &s.memcache
	fresh := s.cluster.Fresh()
	c.mu.Lock()
	gen := c.gen
	out, miss, at := fromCache(c.recs, keys, fresh)
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vals, err := engine.ReadRawMany(ctx, s.store, miss)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	store := fresh && c.gen == gen
	if store && (c.recs == nil || len(c.recs) >= maxCachedMemories) {
		c.recs = map[string][]byte{}
	}
	for j, v := range vals {
		out[at[j]] = v
		if store && v != nil {
			c.recs[miss[j]] = v
		}
	}
	c.mu.Unlock()
	return out, nil
}

// fromCache returns, for keys, the values recs holds (when use) in out,
// and the keys it does not hold with their places in out: what is left
// to read from the store. The caller holds the cache's lock.
func fromCache[V any](recs map[string]V, keys []string, use bool) (out []V, miss []string, at []int) {
	out = make([]V, len(keys))
	for i, k := range keys {
		if v, ok := recs[k]; ok && use {
			out[i] = v
			continue
		}
		miss, at = append(miss, k), append(at, i)
	}
	return out, miss, at
}
