package memory

import (
	"context"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// liveDoc is what retrieval needs of a document whose version is live.
type liveDoc struct {
	Name string
	// Meta is the live version's meta plus documentName (what filters test
	// and results carry).
	Meta map[string]string
}

// docset maps the live version ids of a memory's documents to their
// documents. Chunks of any other version (a replacement still being
// processed, a failed upload, leftovers awaiting purge) are invisible.
type docset map[string]*liveDoc

// docsetCache keeps the docset of recently searched memories. Every change
// of a live version invalidates its memory's entry; a generation counter
// keeps a docset built from an older snapshot from being stored after an
// invalidation.
type docsetCache struct {
	mu   sync.Mutex
	sets map[string]docset
	gen  map[string]uint64
}

func (c *docsetCache) init() {
	c.sets = map[string]docset{}
	c.gen = map[string]uint64{}
}

// TopicDocs is the engine.Cluster topic published, in the same
// transaction, whenever a memory's live documents change (a version goes
// live, a document or the memory is deleted); key: the memory id. In
// cluster mode every other node drops that memory's cached docset when it
// hears of it, and all of them ("" key) after a feed reconnect.
const TopicDocs = "docs"

// publishDocs tells the other nodes, inside tx, that memID's live
// documents change with it.
func (s *Service) publishDocs(tx engine.Tx, memID string) error {
	return s.cluster.Publish(tx, TopicDocs, memID)
}

// invalidateAll drops every cached docset.
func (c *docsetCache) invalidateAll() {
	c.mu.Lock()
	for id := range c.sets {
		c.gen[id]++
	}
	c.sets = map[string]docset{}
	c.mu.Unlock()
}

func (c *docsetCache) invalidate(memID string) {
	c.mu.Lock()
	delete(c.sets, memID)
	c.gen[memID]++
	c.mu.Unlock()
}

// maxCachedDocsets bounds the cache; it is emptied when full.
const maxCachedDocsets = 1024

// docset returns memID's live documents, from the cache while the node's
// change feed is fresh (engine.Cluster.Fresh; always with one process):
// a node whose feed failed or stalled reads the store and caches nothing.
func (s *Service) docset(ctx context.Context, memID string) (docset, error) {
	c := &s.docsets
	fresh := s.cluster.Fresh()
	c.mu.Lock()
	if ds, ok := c.sets[memID]; ok && fresh {
		c.mu.Unlock()
		return ds, nil
	}
	gen := c.gen[memID]
	c.mu.Unlock()
	ds := docset{}
	err := s.store.View(ctx, func(tx engine.Tx) error {
		return engine.ScanJSON(tx, docPrefix(memID), func(d *Document) error {
			if d.Live == nil {
				return nil
			}
			meta := make(map[string]string, len(d.Live.Meta)+1)
			for k, v := range d.Live.Meta {
				meta[k] = v
			}
			meta[MetaDocumentName] = d.Name
			ds[d.Live.ID] = &liveDoc{Name: d.Name, Meta: meta}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.gen[memID] == gen && fresh {
		if len(c.sets) >= maxCachedDocsets {
			c.sets = map[string]docset{}
		}
		c.sets[memID] = ds
	}
	c.mu.Unlock()
	return ds, nil
}
