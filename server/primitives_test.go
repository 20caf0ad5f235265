package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

func TestEmbed(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"))
	key := servertest.AdminKey

	// Default model: openai:text-embedding-3-large, in input order.
	r := ts.Do("POST", "/v1/embed", key, map[string]any{"chunks": []string{"one", "two", "three"}})
	mustStatus(t, r, 200)
	var vecs [][]float64
	r.JSON(t, &vecs)
	if len(vecs) != 3 || len(vecs[0]) == 0 {
		t.Fatalf("vectors: %s", r.Body)
	}
	if body := up.LastRequest().JSON(); body["model"] != "text-embedding-3-large" {
		t.Fatalf("upstream request: %v", body)
	}
	// The caller's own key wins.
	mustStatus(t, ts.Do("POST", "/v1/embed", key, map[string]any{"chunks": []string{"x"}}, "LB-LLM-Key", "sk-caller"), 200)
	if got := up.LastRequest().Header.Get("Authorization"); got != "Bearer sk-caller" {
		t.Fatalf("key %q", got)
	}
	r = ts.Do("POST", "/v1/embed", key, map[string]any{"chunks": []string{"alpha beta", "alpha beta"}, "embeddingModel": hashModel})
	mustStatus(t, r, 200)
	r.JSON(t, &vecs)
	if len(vecs) != 2 || len(vecs[0]) != 256 || vecs[0][0] != vecs[1][0] {
		t.Fatalf("hash vectors: %d", len(vecs))
	}
	hundred := make([]string, 100)
	for i := range hundred {
		hundred[i] = "chunk"
	}
	mustStatus(t, ts.Do("POST", "/v1/embed", key, map[string]any{"chunks": hundred, "embeddingModel": hashModel}), 200)
	mustStatus(t, ts.Do("POST", "/v1/embed", key, map[string]any{"chunks": []string{strings.Repeat("é", 8192)}, "embeddingModel": hashModel}), 200)

	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no chunks", map[string]any{}, "chunks"},
		{"empty chunks", map[string]any{"chunks": []string{}}, "chunks"},
		{"101 chunks", map[string]any{"chunks": append(hundred, "x")}, "chunks"},
		{"long chunk", map[string]any{"chunks": []string{"ok", strings.Repeat("a", 8193)}}, "chunks[1]"},
		{"blank chunk", map[string]any{"chunks": []string{" "}}, "chunks[0]"},
		{"not strings", map[string]any{"chunks": []any{1}}, "chunks"},
		{"chat model", map[string]any{"chunks": []string{"x"}, "embeddingModel": "openai:gpt-4o"}, "embeddingModel"},
		{"unknown provider", map[string]any{"chunks": []string{"x"}, "embeddingModel": "nope:x"}, "embeddingModel"},
	}
	for _, tc := range cases {
		r := ts.Do("POST", "/v1/embed", key, tc.body)
		if _, msg := errorOf(t, r); r.Status != 400 || !strings.HasPrefix(msg, tc.field) {
			t.Errorf("%s: %d %s, want 400 naming %s", tc.name, r.Status, r.Body, tc.field)
		}
	}
	// Provider errors come back as provider errors.
	up.Enqueue(fake.Reply{Status: 401, Message: "bad key"})
	r = ts.Do("POST", "/v1/embed", key, map[string]any{"chunks": []string{"x"}})
	if _, msg := errorOf(t, r); r.Status != 400 || !strings.Contains(msg, "bad key") {
		t.Fatalf("provider error: %d %s", r.Status, r.Body)
	}
}

func TestChunker(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	text := strings.Repeat("Hearth chunks text by characters. ", 200)
	r := ts.Do("POST", "/v1/chunker", key, map[string]any{"content": text})
	mustStatus(t, r, 200)
	var chunks []string
	r.JSON(t, &chunks)
	if len(chunks) < 6 {
		t.Fatalf("default 1024/256: %d chunks", len(chunks))
	}
	for _, c := range chunks {
		if n := len([]rune(c)); n > 1024 {
			t.Fatalf("chunk of %d characters", n)
		}
	}
	r = ts.Do("POST", "/v1/chunker", key, map[string]any{"content": text, "chunkMaxLength": 30000, "chunkOverlap": 256})
	mustStatus(t, r, 200)
	r.JSON(t, &chunks)
	if len(chunks) != 1 {
		t.Fatalf("one big chunk: %d", len(chunks))
	}
	r = ts.Do("POST", "/v1/chunker", key, map[string]any{"content": ""})
	if mustStatus(t, r, 200); string(r.Body) != "[]\n" {
		t.Fatalf("empty content: %s", r.Body)
	}
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no content", map[string]any{}, "content"},
		{"max too small", map[string]any{"content": "x", "chunkMaxLength": 1023}, "chunkMaxLength"},
		{"max too big", map[string]any{"content": "x", "chunkMaxLength": 30001}, "chunkMaxLength"},
		{"overlap too small", map[string]any{"content": "x", "chunkOverlap": 255}, "chunkOverlap"},
		{"overlap not below max", map[string]any{"content": "x", "chunkMaxLength": 1024, "chunkOverlap": 1024}, "chunkOverlap"},
		{"content not a string", map[string]any{"content": 5}, "content"},
	} {
		r := ts.Do("POST", "/v1/chunker", key, tc.body)
		if _, msg := errorOf(t, r); r.Status != 400 || !strings.HasPrefix(msg, tc.field) {
			t.Errorf("%s: %d %s, want 400 naming %s", tc.name, r.Status, r.Body, tc.field)
		}
	}
}

// parserRequest builds the SDK's multipart parser request.
func parserRequest(t *testing.T, ts *servertest.Server, key, name, partType string, data []byte, withName bool) (int, map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="document"; filename="`+name+`"`)
	if partType != "" {
		h.Set("Content-Type", partType)
	}
	pw, _ := mw.CreatePart(h)
	pw.Write(data)
	if withName {
		mw.WriteField("documentName", name)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/v1/parser", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("parser answer is not JSON (%d): %s", resp.StatusCode, b)
	}
	return resp.StatusCode, out
}

func TestParser(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.MaxUploadBytes = 64 << 10 }))
	key := servertest.AdminKey
	status, out := parserRequest(t, ts, key, "simple.pdf", "application/pdf", fixture(t, "simple.pdf"), true)
	if status != 200 || out["documentName"] != "simple.pdf" || !strings.Contains(out["content"].(string), "quick brown fox") {
		t.Fatalf("pdf: %d %v", status, out)
	}
	status, out = parserRequest(t, ts, key, "people.csv", "", fixture(t, "people.csv"), false)
	if status != 200 || out["documentName"] != "people.csv" || !strings.Contains(out["content"].(string), "name: Ada Lovelace") {
		t.Fatalf("csv by file name: %d %v", status, out)
	}
	for _, tc := range []struct {
		name, partType string
		data           []byte
		status         int
		want           string
	}{
		{"corrupt.pdf", "application/pdf", fixture(t, "corrupt.pdf"), 400, "corrupt"},
		{"encrypted.pdf", "application/pdf", fixture(t, "encrypted.pdf"), 400, "encrypted"},
		{"empty.txt", "text/plain", nil, 400, "empty"},
		{"a.txt", "application/pdf", []byte("text"), 415, "does not match"},
		{"big.txt", "text/plain", bytes.Repeat([]byte("x"), 65<<10), 413, "limit"},
	} {
		status, out := parserRequest(t, ts, key, tc.name, tc.partType, tc.data, true)
		e, _ := out["error"].(map[string]any)
		if msg, _ := e["message"].(string); status != tc.status || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %d %v, want %d with %q", tc.name, status, out, tc.status, tc.want)
		}
	}
	// Not multipart, and no document part: JSON errors too.
	r := ts.Do("POST", "/v1/parser", key, map[string]any{"documentName": "x.txt"})
	if code, _ := errorOf(t, r); r.Status != 415 || code != "UNSUPPORTED_MEDIA_TYPE" {
		t.Fatalf("json body: %d %s", r.Status, r.Body)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("documentName", "x.txt")
	mw.Close()
	r = ts.Do("POST", "/v1/parser", key, buf.Bytes(), "Content-Type", mw.FormDataContentType())
	if _, msg := errorOf(t, r); r.Status != 400 || !strings.HasPrefix(msg, "document") {
		t.Fatalf("no document part: %d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/v1/parser", key, "--broken", "Content-Type", "multipart/form-data; boundary=zzz")
	if r.Status != 400 || !json.Valid(r.Body) {
		t.Fatalf("broken multipart: %d %s", r.Status, r.Body)
	}
}

// TestMalformedPDFTimesOut: a PDF that makes the PDF library loop forever
// is parsed in a child process that is killed after the parse timeout, in
// the parser primitive and in ingestion alike; the server stays responsive
// meanwhile and the answer or the document status says what happened.
func TestMalformedPDFTimesOut(t *testing.T) {
	parser, err := servertest.NewParser(sandbox.Config{Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts := servertest.Start(t, servertest.WithMemory(func(c *memory.Config) { c.Parse = parser.Parse }))
	key := servertest.AdminKey
	const want = "parsing timed out after 3s: the PDF may be malformed"
	done := make(chan struct{})
	go func() {
		defer close(done)
		status, out := parserRequest(t, ts, key, "hang.pdf", "application/pdf", fixture(t, "objstm-hang.pdf"), true)
		e, _ := out["error"].(map[string]any)
		if msg, _ := e["message"].(string); status != 400 || msg != want {
			t.Errorf("parser: %d %v", status, out)
		}
	}()
	status, out := parserRequest(t, ts, key, "simple.pdf", "application/pdf", fixture(t, "simple.pdf"), true)
	if status != 200 || !strings.Contains(out["content"].(string), "quick brown fox") {
		t.Fatalf("a good PDF next to a hanging one: %d %v", status, out)
	}
	<-done

	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "hearth:bm25"})
	upload(t, ts, key, "kb", "hang.pdf", "application/pdf", fixture(t, "objstm-hang.pdf"), nil)
	d := waitDoc(t, ts, key, "kb", "hang.pdf")
	if d.Status != "failed" || d.StatusMessage == nil || *d.StatusMessage != want {
		t.Fatalf("document: %+v", d)
	}
}
