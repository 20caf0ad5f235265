package memory

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
)

// TestMemoryCacheAcrossNodes: node B serves retrieval's memory records
// from its cache, and drops one another node changed once the change feed
// tells it: a memory whose settings change, then deleted and created again
// through node A, is read afresh on B (B answers NOT_FOUND for the deleted
// memory and finds the new memory's document), never from the stale entry;
// a document deleted through A stops being returned by B, which cached its
// chunk.
func TestMemoryCacheAcrossNodes(t *testing.T) { onStores(t, testMemoryCacheAcrossNodes) }

func testMemoryCacheAcrossNodes(t *testing.T, c *testCluster) {
	a := c.node(t, "a", nil)
	b := c.node(t, "b", nil)
	ctx := context.Background()
	create := func(word string) *Memory {
		m, err := a.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel})
		if err != nil {
			t.Fatal(err)
		}
		upload(t, a, "kb", word+".txt", "The "+word+" document. "+synthText(3, 600))
		waitFor(t, "the document to complete", func() bool {
			return docStatus(t, a, "kb", word+".txt").Status == StatusCompleted
		})
		return m
	}
	retrieve := func(s *Service, q string) ([]Result, error) {
		return s.Retrieve(ctx, "ann", RetrieveRequest{Query: q, Memories: []MemoryQuery{{Name: "kb"}}, TopK: 3})
	}
	cached := func(s *Service) []byte {
		s.memcache.mu.Lock()
		defer s.memcache.mu.Unlock()
		return s.memcache.recs[memoryKey("ann", "kb")]
	}

	first := create("alpha")
	waitFor(t, "node B to find the first document", func() bool {
		res, err := retrieve(b, "alpha")
		return err == nil && len(res) > 0 && res[0].Document == "alpha.txt"
	})
	if cached(b) == nil {
		t.Fatal("node B did not cache the memory record it searched")
	}

	// A document B returned (its chunk record cached on B) and then
	// deleted through A is no longer returned by B.
	upload(t, a, "kb", "charlie.txt", "The charlie document. "+synthText(4, 600))
	waitFor(t, "node B to find the charlie document", func() bool {
		res, err := retrieve(b, "charlie")
		return err == nil && len(res) > 0 && res[0].Document == "charlie.txt"
	})
	if err := a.DeleteDocument(ctx, "ann", "kb", "charlie.txt"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "node B to stop returning the deleted document", func() bool {
		res, err := retrieve(b, "charlie")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Document == "charlie.txt" {
				return false
			}
		}
		return true
	})

	// A settings change through A drops B's entry; B reads the new record.
	if _, err := a.SetChunking(ctx, "ann", "kb", &chunk.Settings{Mode: chunk.ModeSize}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "node B to drop the changed memory record", func() bool { return cached(b) == nil })
	if _, err := retrieve(b, "alpha"); err != nil {
		t.Fatal(err)
	}
	var m Memory
	if err := json.Unmarshal(cached(b), &m); err != nil || m.Chunking == nil {
		t.Fatalf("node B cached %+v (%v), want the record with the new chunking", m, err)
	}

	// Deleted through A: B refuses it, then finds the memory created anew.
	if err := a.Delete(ctx, "ann", "kb"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "node B to answer NOT_FOUND for the deleted memory", func() bool {
		_, err := retrieve(b, "alpha")
		return engine.IsNotFound(err)
	})
	second := create("bravo")
	if second.ID == first.ID {
		t.Fatal("the memory created again kept its id")
	}
	waitFor(t, "node B to find the new memory's document", func() bool {
		res, err := retrieve(b, "bravo")
		return err == nil && len(res) > 0 && res[0].Document == "bravo.txt"
	})
	if err := json.Unmarshal(cached(b), &m); err != nil || m.ID != second.ID {
		t.Fatalf("node B cached memory %q (%v), want %q", m.ID, err, second.ID)
	}
}

// staleNode is a testNode whose change feed is not fresh (failed or
// stalled), or is and then reconnects after a gap.
type staleNode struct {
	*testNode
	fresh atomic.Bool
}

func (n *staleNode) Fresh() bool { return n.fresh.Load() }

// TestRetrievalCachesNeedFreshFeed: a node whose feed is not fresh serves
// retrieval from the store and caches neither memory records nor docsets;
// once fresh it caches them, and a feed gap ("" key) drops them.
func TestRetrievalCachesNeedFreshFeed(t *testing.T) {
	c := newTestCluster(t)
	a := c.node(t, "a", nil)
	node := &staleNode{testNode: c.cluster("b")}
	b := c.node(t, "b", func(cfg *Config) { cfg.Cluster = node })
	ctx := context.Background()
	m, err := a.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel})
	if err != nil {
		t.Fatal(err)
	}
	upload(t, a, "kb", "one.txt", "The alpha document. "+synthText(5, 600))
	waitFor(t, "the document to complete", func() bool {
		return docStatus(t, a, "kb", "one.txt").Status == StatusCompleted
	})
	cached := func() (mem, docs bool) {
		b.memcache.mu.Lock()
		_, mem = b.memcache.recs[memoryKey("ann", "kb")]
		b.memcache.mu.Unlock()
		b.docsets.mu.Lock()
		_, docs = b.docsets.sets[m.ID]
		b.docsets.mu.Unlock()
		return mem, docs
	}
	search := func() {
		t.Helper()
		res, err := b.Retrieve(ctx, "ann", RetrieveRequest{Query: "alpha", Memories: []MemoryQuery{{Name: "kb"}}, TopK: 3})
		if err != nil || len(res) == 0 {
			t.Fatalf("retrieve on B: %v %v", res, err)
		}
	}
	search()
	if mem, docs := cached(); mem || docs {
		t.Fatalf("a node with a stale feed cached the memory record (%v) or its docset (%v)", mem, docs)
	}
	node.fresh.Store(true)
	search()
	if mem, docs := cached(); !mem || !docs {
		t.Fatalf("a fresh node did not cache the memory record (%v) or its docset (%v)", mem, docs)
	}
	for _, topic := range []string{TopicMemory, TopicDocs} {
		if err := c.cluster("a").Publish(nil, topic, ""); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "a feed gap to drop B's caches", func() bool { mem, docs := cached(); return !mem && !docs })
}
