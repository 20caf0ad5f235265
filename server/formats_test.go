package server_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestOfficeFormatsEndToEnd: LibreOffice-made docx, pptx, odt, EPUB and
// RTF files and an HTML page sent as text/html are ingested through the
// upload flow (parsed in the parser child where the format asks for it)
// and found by retrieval; /v1/parser reads them too.
func TestOfficeFormatsEndToEnd(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "office", "embedding_model": "hearth:bm25"})
	files := []struct{ name, ct, phrase string }{
		{"sample.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Add supers"},
		{"slides.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", "biggest tides"},
		{"sample.odt", "application/vnd.oasis.opendocument.text", "Feed syrup"},
		{"sample.epub", "application/epub+zip", "Feed syrup"},
		{"sample.rtf", "application/rtf", "Café crème"},
		{"sample.html", "text/html", "# Beekeeping basics"},
	}
	for _, f := range files {
		data, err := os.ReadFile("../testdata/docs/office/" + f.name)
		if err != nil {
			t.Fatal(err)
		}
		upload(t, ts, key, "office", f.name, f.ct, data, nil)
		status, out := parserRequest(t, ts, key, f.name, f.ct, data, true)
		if content, _ := out["content"].(string); status != 200 || !strings.Contains(content, f.phrase) {
			t.Errorf("parser %s: %d %v", f.name, status, out)
		}
	}
	for _, f := range files {
		waitCompleted(t, ts, key, "office", f.name)
	}
	res := retrieve(t, ts, key, map[string]any{"query": "biggest tides", "memory": []map[string]any{{"name": "office"}}, "topK": 1})
	if len(res) != 1 || res[0].DocumentName != "slides.pptx" {
		t.Fatalf("retrieval: %+v", res)
	}
	status, out := parserRequest(t, ts, key, "broken.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", []byte("not a zip"), true)
	e, _ := out["error"].(map[string]any)
	if msg, _ := e["message"].(string); status != 400 || !strings.Contains(msg, "not a valid docx (zip) archive") {
		t.Fatalf("corrupt docx: %d %v", status, out)
	}
}
