package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// chunkCache keeps the decoded records of the chunks retrieval returned, by
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
	recs  map[string]*chunkRecord
	bytes int
}

// maxChunkCacheBytes bounds the cache's texts.
const maxChunkCacheBytes = 32 << 20

// readChunkRecords returns the decoded record of each chunk key (nil:
// gone): from the cache in cluster mode, the others in one read. The
// records are shared: callers must not change them.
func (s *Service) readChunkRecords(ctx context.Context, keys []string) ([]*chunkRecord, error) {
	c := &s.chunks
	shared := s.shared()
	c.mu.Lock()
	out, miss, at := fromCache(c.recs, keys, shared)
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vals, err := engine.ReadRawMany(ctx, s.store, miss)
	if err != nil {
		return nil, err
	}
	for j, v := range vals {
		if v == nil {
			continue
		}
		r := new(chunkRecord)
		if err := json.Unmarshal(v, r); err != nil {
			return nil, fmt.Errorf("decode %s: %w", miss[j], err)
		}
		out[at[j]] = r
	}
	if !shared {
		return out, nil
	}
	c.mu.Lock()
	for j, k := range miss {
		r := out[at[j]]
		if r == nil {
			continue
		}
		size := len(k) + len(r.Doc) + len(r.Text) + len(r.Heading) + len(r.Parent) + len(r.ParentChunk) + 64
		if c.recs == nil || c.bytes+size > maxChunkCacheBytes {
			c.recs, c.bytes = map[string]*chunkRecord{}, 0
		}
		if _, ok := c.recs[k]; !ok {
			c.recs[k] = r
			c.bytes += size
		}
	}
	c.mu.Unlock()
	return out, nil
}
