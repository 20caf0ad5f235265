package memory

import (
	"context"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// chunkCache keeps the stored records of the chunks retrieval returned, by
// store key, on a node in cluster mode, so a search reads only the chunks
// it has not returned before from PostgreSQL. A chunk record is written
// once, by the ingestion of its document version (a resumed ingestion
// writes the same), under a key naming the memory and the version, and is
// only deleted after the version stopped being live; retrieval asks only
// for chunks of versions its docset holds live. So an entry never holds
// other bytes than the store does for a chunk a search can return, and
// needs no invalidation; entries of purged versions are never asked for
// again and leave when the cache is emptied. The cache is emptied when it
// holds maxChunkCacheBytes. With one process (Badger) reads are local and
// it is off.
type chunkCache struct {
	mu    sync.Mutex
	recs  map[string][]byte
	bytes int
}

// maxChunkCacheBytes bounds the cache's values.
const maxChunkCacheBytes = 32 << 20

// readChunkRecords returns the stored record of each chunk key (nil: gone):
// from the cache in cluster mode, the others in one read.
func (s *Service) readChunkRecords(ctx context.Context, keys []string) ([][]byte, error) {
	if !s.shared() {
		return engine.ReadRawMany(ctx, s.store, keys)
	}
	c := &s.chunks
	out := make([][]byte, len(keys))
	var miss []string
	var at []int
	c.mu.Lock()
	for i, k := range keys {
		if b, ok := c.recs[k]; ok {
			out[i] = b
			continue
		}
		miss, at = append(miss, k), append(at, i)
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vals, err := engine.ReadRawMany(ctx, s.store, miss)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	for j, v := range vals {
		out[at[j]] = v
		if v == nil {
			continue
		}
		if c.recs == nil || c.bytes+len(v) > maxChunkCacheBytes {
			c.recs, c.bytes = map[string][]byte{}, 0
		}
		if _, ok := c.recs[miss[j]]; !ok {
			c.recs[miss[j]] = v
			c.bytes += len(v) + len(miss[j])
		}
	}
	c.mu.Unlock()
	return out, nil
}
