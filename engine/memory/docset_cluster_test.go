package memory

import (
	"context"
	"testing"
)

// TestDocsetCacheAcrossNodes: node B caches a memory's live documents for
// retrieval; a document deleted through node A disappears from B's cache
// through the docs topic, not only from A's.
func TestDocsetCacheAcrossNodes(t *testing.T) { onStores(t, testDocsetCacheAcrossNodes) }

func testDocsetCacheAcrossNodes(t *testing.T, c *testCluster) {
	a := c.node(t, "a", nil)
	b := c.node(t, "b", nil)
	ctx := context.Background()
	m, err := a.Create(ctx, "ann", CreateRequest{Name: "kb", EmbeddingModel: KeywordOnlyModel})
	if err != nil {
		t.Fatal(err)
	}
	upload(t, a, "kb", "one.txt", synthText(1, 2000))
	waitFor(t, "the document to complete", func() bool {
		return docStatus(t, a, "kb", "one.txt").Status == StatusCompleted
	})
	liveDocs := func(s *Service) int {
		ds, err := s.docset(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(ds)
	}
	waitFor(t, "node B to see the live document", func() bool { return liveDocs(b) == 1 })
	if err := a.DeleteDocument(ctx, "ann", "kb", "one.txt"); err != nil {
		t.Fatal(err)
	}
	if n := liveDocs(a); n != 0 {
		t.Fatalf("node A still lists %d live documents after deleting one", n)
	}
	waitFor(t, "node B to drop the deleted document from its cache", func() bool { return liveDocs(b) == 0 })
}
