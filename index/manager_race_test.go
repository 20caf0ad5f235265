package index

import (
	"context"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/index/internal/memstore"
)

// TestManagerConcurrentUse runs searches while chunks are added, removed,
// compacted and snapshotted; run with -race.
func TestManagerConcurrentUse(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, memstore.New(), t.TempDir(), Options{ExactThreshold: 100})
	defer m.Close()
	vs := clustered(800, 16, 8, 12)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := m.SearchVector(ctx, "mem", vs[i%len(vs)], 5, nil); err != nil {
					t.Error(err)
					return
				}
				if _, err := m.SearchKeyword(ctx, "mem", "chunk", 5, nil); err != nil {
					t.Error(err)
					return
				}
				m.Stats()
			}
		}(r)
	}
	for i := 0; i < len(vs); i += 100 {
		chunks := chunksOf(vs[i:i+100], i)
		for j := range chunks {
			chunks[j].Text = "chunk " + chunks[j].ID
		}
		if err := m.Add(ctx, "mem", chunks); err != nil {
			t.Fatal(err)
		}
		var del []string
		for j := i; j < i+60; j++ {
			del = append(del, chunkID(j))
		}
		if err := m.Remove(ctx, "mem", del); err != nil {
			t.Fatal(err)
		}
		if err := m.Maintain(ctx); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	s := memStats(t, m, "mem")
	if s.Vectors != 320 || s.KeywordDocs != 320 {
		t.Fatalf("stats: %+v", s)
	}
	hits, err := m.SearchVector(ctx, "mem", vs[799], 3, nil)
	if err != nil || hits[0].ID != chunkID(799) {
		t.Fatalf("%v %v", hits, err)
	}
}
