package server_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// structuredChunk is a retrieval result with the fields of
// docs/memories-and-retrieval.md#structure-aware-chunking.
type structuredChunk struct {
	Text         string `json:"text"`
	DocumentName string `json:"documentName"`
	Heading      string `json:"heading"`
	Section      string `json:"section"`
}

func retrieveStructured(t *testing.T, ts *servertest.Server, mem, query string, topK int) []structuredChunk {
	t.Helper()
	r := ts.Do("POST", "/v1/memory/retrieve", servertest.AdminKey, map[string]any{"query": query, "memory": []map[string]string{{"name": mem}}, "topK": topK})
	mustStatus(t, r, 200)
	var out []structuredChunk
	r.JSON(t, &out)
	if len(out) == 0 {
		t.Fatalf("%s: nothing retrieved for %q", mem, query)
	}
	return out
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../engine/chunk/testdata/structure/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Markdown set to structure chunking per memory and HTML set to it per
// upload are cut at their headings; results carry the heading path, and
// code blocks and tables come whole.
func TestStructureChunkingHeadingPaths(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "docs", "embedding_model": "hearth:bm25", "chunk_size": 400, "chunk_overlap": 40,
		"chunking": map[string]any{"mode": "structure"}})
	upload(t, ts, key, "docs", "guide.md", "text/markdown", readTestdata(t, "guide.md"), nil)
	waitCompleted(t, ts, key, "docs", "guide.md")
	top := retrieveStructured(t, ts, "docs", "unpack the archive", 1)[0]
	if top.Heading != "Guide > Install > Linux" || !strings.Contains(top.Text, "tar -xzf hearth.tar.gz\n\nsudo mv hearth /usr/local/bin/\n```") {
		t.Fatalf("top chunk %+v", top)
	}
	r := ts.Do("GET", "/v1/memory/docs/documents/guide.md/chunks", key, nil)
	mustStatus(t, r, 200)
	var page struct {
		Data []struct {
			Heading string `json:"heading"`
		} `json:"data"`
	}
	r.JSON(t, &page)
	if len(page.Data) != 5 || page.Data[2].Heading != "Guide > Install > Linux" {
		t.Fatalf("document chunks: %s", r.Body)
	}
	top = retrieveStructured(t, ts, "docs", "HEARTH_DATA data directory", 1)[0]
	if top.Heading != "Guide > Configuration" || !strings.Contains(top.Text, "| HEARTH_ADDR | :8080 | listen address |\n| HEARTH_DATA") {
		t.Fatalf("top chunk %+v", top)
	}

	// A size-chunked memory; one HTML upload asks for structure.
	createMemory(t, ts, key, map[string]any{"name": "web", "embedding_model": "hearth:bm25", "chunk_size": 100, "chunk_overlap": 10})
	url := ts.Do("POST", "/v1/memory/documents", key, map[string]any{"memoryName": "web", "documentName": "guide.html",
		"chunking": map[string]any{"mode": "structure"}})
	mustStatus(t, url, 200)
	var signed struct {
		SignedURL string `json:"signedUrl"`
	}
	url.JSON(t, &signed)
	if status, out := put(t, signed.SignedURL, key, "text/html", readTestdata(t, "guide.html")); status != 200 {
		t.Fatalf("upload: %d %v", status, out)
	}
	upload(t, ts, key, "web", "plain.md", "text/markdown", []byte("# Title\n\nSticky notes on the fridge."), nil)
	waitCompleted(t, ts, key, "web", "guide.html")
	waitCompleted(t, ts, key, "web", "plain.md")
	for _, c := range retrieveStructured(t, ts, "web", "sticky", 5) {
		want := map[string]string{"guide.html": "Handbook > Recipes > Rye", "plain.md": ""}[c.DocumentName]
		if c.Heading != want {
			t.Errorf("%s chunk %q has heading %q, want %q", c.DocumentName, c.Text, c.Heading, want)
		}
	}
	top = retrieveStructured(t, ts, "web", "price EUR", 1)[0]
	if top.Heading != "Handbook > Prices" || !strings.Contains(top.Text, "Bread | Price\nSourdough | 6 EUR\nRye | 5 EUR") {
		t.Fatalf("top chunk %+v", top)
	}
}

// In parent-child mode retrieval matches a small chunk and answers its
// enclosing section, which a run's sources carry too, once per section.
func TestStructureChunkingParentChild(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "hearth:bm25", "chunk_size": 60, "chunk_overlap": 0, "top_k": 3,
		"chunking": map[string]any{"mode": "structure", "parent": map[string]any{"max_size": 2000}}})
	upload(t, ts, key, "kb", "guide.md", "text/markdown", readTestdata(t, "guide.md"), nil)
	waitCompleted(t, ts, key, "kb", "guide.md")
	top := retrieveStructured(t, ts, "kb", "unpack archive usr local bin", 1)[0]
	if len([]rune(top.Text)) > 60 || top.Heading != "Guide > Install > Linux" ||
		!strings.HasPrefix(top.Section, "### Linux\n") || !strings.HasSuffix(top.Section, "sudo mv hearth /usr/local/bin/\n```") {
		t.Fatalf("top chunk %+v", top)
	}

	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "rag", "model": "hearth:echo",
		"memory": []map[string]string{{"name": "kb"}}}), 200)
	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "rag", "include_sources": true,
		"messages": []map[string]string{{"role": "user", "content": "unpack archive usr local bin"}}})
	mustStatus(t, r, 200)
	var got struct {
		Sources []structuredChunk `json:"sources"`
	}
	r.JSON(t, &got)
	seen := map[string]bool{}
	for _, s := range got.Sources {
		if s.Section == "" || seen[s.Section] {
			t.Fatalf("sources without a section or repeating one: %s", r.Body)
		}
		seen[s.Section] = true
	}
	if len(got.Sources) == 0 || got.Sources[0].Section != top.Section {
		t.Fatalf("sources %s", r.Body)
	}
}

// Bad chunk settings are refused naming the field; without settings a
// memory keeps size chunking and its results carry no heading.
func TestStructureChunkingSettings(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	for body, field := range map[string]map[string]any{
		"chunking.mode":            {"mode": "semantic"},
		"chunking.parent":          {"mode": "size", "parent": map[string]any{"max_size": 5000}},
		"chunking.parent.max_size": {"mode": "structure", "parent": map[string]any{"max_size": 10}},
	} {
		r := ts.Do("POST", "/v1/memory", key, map[string]any{"name": "bad", "embedding_model": "hearth:bm25", "chunk_size": 100, "chunk_overlap": 0, "chunking": field})
		mustStatus(t, r, 400)
		if !strings.Contains(string(r.Body), `"`+body+`"`) {
			t.Errorf("error does not name %s: %s", body, r.Body)
		}
	}
	createMemory(t, ts, key, map[string]any{"name": "plain", "embedding_model": "hearth:bm25", "chunk_size": 400, "chunk_overlap": 40})
	r := ts.Do("POST", "/v1/memory/documents", key, map[string]any{"memoryName": "plain", "documentName": "a.md", "chunking": map[string]any{"mode": "words"}})
	mustStatus(t, r, 400)
	if !strings.Contains(string(r.Body), `"chunking.mode"`) {
		t.Errorf("upload error does not name chunking.mode: %s", r.Body)
	}
	upload(t, ts, key, "plain", "guide.md", "text/markdown", readTestdata(t, "guide.md"), nil)
	waitCompleted(t, ts, key, "plain", "guide.md")
	for _, c := range retrieveStructured(t, ts, "plain", "unpack the archive", 3) {
		if c.Heading != "" || c.Section != "" {
			t.Fatalf("size chunking answered a heading: %+v", c)
		}
	}
	r = ts.Do("GET", "/v1/memory", key, nil)
	if strings.Contains(string(r.Body), "chunking") {
		t.Fatalf("a memory without chunk settings lists them: %s", r.Body)
	}
}
