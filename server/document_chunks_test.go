package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestDocumentChunks lists a document's chunks in order, in pages that
// join up to the whole text, refuses a bad offset or limit naming the
// field, and answers 404 for a missing document or another owner.
func TestDocumentChunks(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 120, "chunk_overlap": 0})
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "Sentence number %03d about the hearth. ", i)
	}
	upload(t, ts, key, "kb", "notes.txt", "text/plain", []byte(b.String()), nil)
	d := waitCompleted(t, ts, key, "kb", "notes.txt")
	if d.Chunks < 5 {
		t.Fatalf("want several chunks, got %d", d.Chunks)
	}

	type page struct {
		Document string `json:"document"`
		Status   string `json:"status"`
		Total    int    `json:"total"`
		Data     []struct {
			Index int    `json:"index"`
			Text  string `json:"text"`
		} `json:"data"`
		NextOffset *int `json:"next_offset"`
	}
	var all []string
	path := "/v1/memory/kb/documents/notes.txt/chunks?limit=2"
	for pages := 0; ; pages++ {
		var p page
		r := ts.Do("GET", path, key, nil)
		mustStatus(t, r, 200)
		r.JSON(t, &p)
		if p.Document != "notes.txt" || p.Status != "completed" || p.Total != d.Chunks || len(p.Data) == 0 || len(p.Data) > 2 {
			t.Fatalf("page %d: %s", pages, r.Body)
		}
		for _, c := range p.Data {
			if c.Index != len(all) {
				t.Fatalf("chunk index %d at position %d", c.Index, len(all))
			}
			all = append(all, c.Text)
		}
		if p.NextOffset == nil {
			break
		}
		path = fmt.Sprintf("/v1/memory/kb/documents/notes.txt/chunks?limit=2&offset=%d", *p.NextOffset)
	}
	if len(all) != d.Chunks {
		t.Fatalf("pages gave %d chunks; the document has %d", len(all), d.Chunks)
	}
	joined := strings.Join(all, " ")
	for _, want := range []string{"number 000", "number 020", "number 039"} {
		if !strings.Contains(joined, want) {
			t.Errorf("chunks lack %q", want)
		}
	}
	if strings.Index(joined, "number 010") > strings.Index(joined, "number 030") {
		t.Error("chunks are not in document order")
	}

	for _, c := range []struct{ query, field string }{{"offset=-1", "offset"}, {"limit=0", "limit"}, {"limit=201", "limit"}, {"offset=x", "offset"}} {
		r := ts.Do("GET", "/v1/memory/kb/documents/notes.txt/chunks?"+c.query, key, nil)
		if r.Status != 400 || !strings.Contains(string(r.Body), c.field) {
			t.Errorf("?%s: %d %s; want 400 naming %s", c.query, r.Status, r.Body, c.field)
		}
	}
	var past page
	ts.Do("GET", "/v1/memory/kb/documents/notes.txt/chunks?offset=999", key, nil).JSON(t, &past)
	if len(past.Data) != 0 || past.NextOffset != nil || past.Total != d.Chunks {
		t.Errorf("offset past the end: %+v", past)
	}
	if r := ts.Do("GET", "/v1/memory/kb/documents/missing.txt/chunks", key, nil); r.Status != 404 {
		t.Errorf("missing document: %d %s", r.Status, r.Body)
	}
	bob := ts.UserWithKey("bob")
	if r := ts.Do("GET", "/v1/memory/kb/documents/notes.txt/chunks", bob, nil); r.Status != 404 {
		t.Errorf("another owner: %d %s", r.Status, r.Body)
	}
}
