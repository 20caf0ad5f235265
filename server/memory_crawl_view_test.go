package server

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
)

// TestCrawlViewShape: the API's view of a crawl keeps the stored record's
// settings and progress, leaves out its owner and memory id, shows unset
// times as null and no failures as [].
func TestCrawlViewShape(t *testing.T) {
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &memory.Crawl{ID: "c1", Owner: "alice", Memory: "docs", MemoryID: "m1", StartedAt: started,
		CrawlState: memory.CrawlState{Status: memory.CrawlRunning, URL: "https://example.test/", MaxPages: 5,
			Include: []string{}, Exclude: []string{}, PagesFound: 3, Ingested: 2, Unchanged: 1, Attempts: 1}}
	b, err := json.Marshal(viewCrawl(c))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"attempts", "created_at", "exclude", "failed", "failures", "finished_at", "id", "include",
		"ingested", "max_depth", "max_pages", "memory", "pages_found", "started_at", "status", "unchanged", "url"}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if got["id"] != "c1" || got["memory"] != "docs" || got["status"] != memory.CrawlRunning || got["pages_found"] != 3.0 {
		t.Fatalf("view %s", b)
	}
	if got["started_at"] != started.Format(time.RFC3339) || got["finished_at"] != nil {
		t.Fatalf("times in %s", b)
	}
	if f, ok := got["failures"].([]any); !ok || len(f) != 0 {
		t.Fatalf("failures in %s", b)
	}
}
