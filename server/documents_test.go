package server_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

func TestUploadIngestRetrieve(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 200, "chunk_overlap": 20})

	text := strings.Repeat("Hearth stores documents in Badger. ", 10) + "\n\n" +
		strings.Repeat("The ingestion workers embed chunks in batches. ", 10)
	upload(t, ts, key, "kb", "notes.txt", "text/plain", []byte(text), map[string]string{"team": "core"})
	d := waitCompleted(t, ts, key, "kb", "notes.txt")
	if d.Chunks < 2 || d.Metadata.Size != int64(len(text)) || d.Metadata.Type != "text/plain" || d.Meta["team"] != "core" ||
		!d.Enabled || d.ChunkSize != 200 || d.ChunkOverlap != 20 || d.OwnerLogin != "admin" || d.StatusMessage != nil {
		t.Fatalf("document: %+v", d)
	}
	res := retrieve(t, ts, key, map[string]any{"query": "ingestion workers batches", "memory": []map[string]any{{"name": "kb"}}, "topK": 3})
	if len(res) == 0 || !strings.Contains(res[0].Text, "ingestion workers") {
		t.Fatalf("retrieve: %+v", res)
	}
	if res[0].Meta["team"] != "core" || res[0].Meta["documentName"] != "notes.txt" || res[0].Meta["docName"] != "notes.txt" {
		t.Fatalf("meta: %+v", res[0].Meta)
	}
	for i := 1; i < len(res); i++ {
		if res[i].Similarity > res[i-1].Similarity {
			t.Fatalf("not ranked: %+v", res)
		}
	}
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUploadStepOneValidation(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	eleven := map[string]string{}
	for i := 0; i < 11; i++ {
		eleven[fmt.Sprintf("k%d", i)] = "v"
	}
	cases := []struct {
		name   string
		body   map[string]any
		status int
		field  string
	}{
		{"missing memoryName", map[string]any{"documentName": "a.txt"}, 400, "memoryName"},
		{"missing documentName", map[string]any{"memoryName": "kb"}, 400, "documentName"},
		{"slash in name", map[string]any{"memoryName": "kb", "documentName": "a/b.txt"}, 400, "documentName"},
		{"question mark", map[string]any{"memoryName": "kb", "documentName": "a?.txt"}, 400, "documentName"},
		{"hash", map[string]any{"memoryName": "kb", "documentName": "a#.txt"}, 400, "documentName"},
		{"dot dot", map[string]any{"memoryName": "kb", "documentName": ".."}, 400, "documentName"},
		{"control char", map[string]any{"memoryName": "kb", "documentName": "a\tb.txt"}, 400, "documentName"},
		{"too long", map[string]any{"memoryName": "kb", "documentName": strings.Repeat("a", 252) + ".txt"}, 400, "documentName"},
		{"eleven meta pairs", map[string]any{"memoryName": "kb", "documentName": "a.txt", "meta": eleven}, 400, "meta"},
		{"meta key too long", map[string]any{"memoryName": "kb", "documentName": "a.txt", "meta": map[string]string{strings.Repeat("k", 65): "v"}}, 400, "meta"},
		{"meta value too long", map[string]any{"memoryName": "kb", "documentName": "a.txt", "meta": map[string]string{"k": strings.Repeat("v", 513)}}, 400, "meta"},
		{"meta value not a string", map[string]any{"memoryName": "kb", "documentName": "a.txt", "meta": map[string]any{"k": 1}}, 400, "meta"},
		{"reserved meta key", map[string]any{"memoryName": "kb", "documentName": "a.txt", "meta": map[string]string{"documentName": "x"}}, 400, "meta"},
		{"unknown memory", map[string]any{"memoryName": "nope", "documentName": "a.txt"}, 404, ""},
	}
	for _, tc := range cases {
		r := ts.Do("POST", "/v1/memory/documents", key, tc.body)
		_, msg := errorOf(t, r)
		if r.Status != tc.status || !strings.HasPrefix(msg, tc.field) {
			t.Errorf("%s: %d %s, want %d naming %q", tc.name, r.Status, r.Body, tc.status, tc.field)
		}
	}
	// documentName wins over the deprecated fileName; ten pairs are fine.
	delete(eleven, "k10")
	r := ts.Do("POST", "/v1/memory/documents", key, map[string]any{"memoryName": "kb", "documentName": "real.md", "fileName": "old.txt", "meta": eleven})
	mustStatus(t, r, 200)
	var out struct{ SignedURL string }
	r.JSON(t, &out)
	if status, body := put(t, out.SignedURL, key, "text/markdown", []byte("# Real\n\nreal text")); status != 200 || body["documentName"] != "real.md" {
		t.Fatalf("put: %d %v", status, body)
	}
	d := waitCompleted(t, ts, key, "kb", "real.md")
	if len(d.Meta) != 10 {
		t.Fatalf("meta: %v", d.Meta)
	}
}

// clock is an adjustable test clock.
type clock struct{ offset atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

func TestSignedURLRules(t *testing.T) {
	clk := &clock{}
	ts := servertest.Start(t,
		servertest.WithConfig(func(c *server.Config) { c.MaxUploadBytes = 4096 }),
		servertest.WithMemory(func(c *memory.Config) { c.Now = clk.Now }))
	key := servertest.AdminKey
	bob := ts.UserWithKey("bob")
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	text := []byte("plain text document")

	expect := func(name string, status int, body map[string]any, wantStatus int, wantMsg string) {
		t.Helper()
		e, _ := body["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if status != wantStatus || !strings.Contains(msg, wantMsg) {
			t.Errorf("%s: %d %v, want %d with %q", name, status, body, wantStatus, wantMsg)
		}
	}
	url := signedURL(t, ts, key, "kb", "a.txt", nil)
	i := strings.LastIndex(url, ".")
	sig := url[i+1:]
	flipped := url[:i+1] + string(rune(sig[0]^1)) + sig[1:]
	status, body := put(t, flipped, key, "text/plain", text)
	expect("tampered signature", status, body, 403, "not valid")
	parts := strings.Split(url[strings.LastIndex(url, "/")+1:], ".")
	later := strings.Replace(url, "."+parts[1]+".", fmt.Sprintf(".%d.", time.Now().Add(48*time.Hour).Unix()), 1)
	status, body = put(t, later, key, "text/plain", text)
	expect("extended expiry", status, body, 403, "not valid")
	other := "x" // another upload id: change its last character
	if strings.HasSuffix(parts[0], other) {
		other = "y"
	}
	status, body = put(t, strings.Replace(url, parts[0], parts[0][:len(parts[0])-1]+other, 1), key, "text/plain", text)
	expect("other upload id", status, body, 403, "not valid")
	status, body = put(t, ts.URL+"/v1/uploads/garbage", key, "text/plain", text)
	expect("garbage token", status, body, 403, "not valid")

	status, body = put(t, url, key, "application/pdf", text)
	expect("type does not match extension", status, body, 415, "does not match")
	status, body = put(t, url, key, "image/png", text)
	expect("unsupported type", status, body, 415, "not supported")
	status, body = put(t, url, key, "", text)
	expect("missing type", status, body, 415, "Content-Type")
	status, body = put(t, url, key, "text/plain", bytes.Repeat([]byte("x"), 5000))
	expect("oversize", status, body, 413, "limit")
	status, body = put(t, url, key, "text/plain", nil)
	expect("empty", status, body, 400, "empty")
	status, body = put(t, url, bob, "text/plain", text)
	expect("another owner's key", status, body, 403, "belongs to \"bob\"")

	// None of the refusals used the URL up; a charset parameter is fine.
	status, body = put(t, url, "", "text/plain; charset=utf-8", text)
	if status != 200 || body["ok"] != true || body["status"] != 200.0 || body["statusText"] != "OK" {
		t.Fatalf("good upload: %d %v", status, body)
	}
	status, body = put(t, url, key, "text/plain", text)
	expect("used twice", status, body, 403, "already used")
	waitCompleted(t, ts, key, "kb", "a.txt")

	// Expiry after two hours.
	url = signedURL(t, ts, key, "kb", "b.txt", nil)
	clk.Advance(2*time.Hour + time.Second)
	status, body = put(t, url, key, "text/plain", text)
	expect("expired", status, body, 403, "expired")
	clk.Advance(-(2*time.Hour + time.Second))

	// The memory was deleted between the steps.
	url = signedURL(t, ts, key, "kb", "c.txt", nil)
	mustStatus(t, ts.Do("DELETE", "/v1/memory/kb", key, nil), 200)
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	status, body = put(t, url, key, "text/plain", text)
	expect("memory deleted", status, body, 404, "deleted")
	if docs := listDocs(t, ts, key, "kb"); len(docs) != 0 {
		t.Fatalf("new memory has %v", docs)
	}
}

func TestReplaceDocument(t *testing.T) {
	gate := newGate("VERSION-TWO")
	ts := servertest.Start(t, withEmbedder(gate))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "gate:any", "chunk_size": 100, "chunk_overlap": 10})
	query := map[string]any{"query": "zebra facts", "memory": []map[string]any{{"name": "kb"}}, "topK": 10}

	upload(t, ts, key, "kb", "doc.txt", "text/plain", []byte("Version one says zebra facts are striped."), map[string]string{"v": "1"})
	waitCompleted(t, ts, key, "kb", "doc.txt")
	upload(t, ts, key, "kb", "doc.txt", "text/plain", []byte("VERSION-TWO says zebra facts are about savannah life."), map[string]string{"v": "2"})
	waitEntered(t, gate)
	d := findDoc(listDocs(t, ts, key, "kb"), "doc.txt")
	if d.Status != "in_progress" || d.Meta["v"] != "2" {
		t.Fatalf("while replacing: %+v", d)
	}
	res := retrieve(t, ts, key, query)
	if len(res) != 1 || !strings.Contains(res[0].Text, "Version one") || res[0].Meta["v"] != "1" {
		t.Fatalf("old version must stay searchable: %+v", res)
	}
	close(gate.release)
	waitCompleted(t, ts, key, "kb", "doc.txt")
	waitIdle(t, ts)
	res = retrieve(t, ts, key, query)
	if len(res) != 1 || !strings.Contains(res[0].Text, "VERSION-TWO") || res[0].Meta["v"] != "2" {
		t.Fatalf("after replace: %+v", res)
	}
	// Only the new version's chunks and blob remain.
	keys := storeKeys(t, ts, "chunk/", "vectors", "vec/", "blob/", "job/", "upload/")
	if keys["chunk/"] != 1 || keys["vectors"] != 1 || keys["vec/"] != 0 || keys["job/"] != 0 || keys["upload/"] != 0 || keys["blob/"] == 0 {
		t.Fatalf("records after replace: %v", keys)
	}
}

// storeKeys counts the store's keys under each prefix; "vectors" counts
// the index's vector records (idx/<memory>/v/<chunk>), the only stored copy
// of the vectors, and "blob/" counts complete blobs.
func storeKeys(t *testing.T, ts *servertest.Server, prefixes ...string) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := ts.Store.View(context.Background(), func(tx engine.Tx) error {
		for _, p := range prefixes {
			scan, match := p, func(string) bool { return true }
			switch p {
			case "blob/":
				match = func(k string) bool { return strings.HasSuffix(k, "/meta") }
			case "vectors":
				scan, match = "idx/", func(k string) bool { return strings.Contains(k, "/v/") }
			}
			if err := tx.Scan(scan, "", func(k string, _ []byte) error {
				if match(k) {
					out[p]++
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeleteDocumentAndMemory(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 100, "chunk_overlap": 0})
	upload(t, ts, key, "kb", "keep.txt", "text/plain", []byte(strings.Repeat("apples and pears. ", 20)), nil)
	upload(t, ts, key, "kb", "my doc.txt", "text/plain", []byte(strings.Repeat("zebras and lions. ", 20)), nil)
	waitCompleted(t, ts, key, "kb", "keep.txt")
	waitCompleted(t, ts, key, "kb", "my doc.txt")
	before := storeKeys(t, ts, "chunk/", "vectors", "blob/")

	r := ts.Do("DELETE", "/v1/memory/kb/documents/my%20doc.txt", key, nil)
	mustStatus(t, r, 200)
	if string(r.Body) != "{\"success\":true}\n" {
		t.Fatalf("delete: %s", r.Body)
	}
	mustStatus(t, ts.Do("DELETE", "/v1/memory/kb/documents/my%20doc.txt", key, nil), 404)
	if docs := listDocs(t, ts, key, "kb"); len(docs) != 1 || docs[0].Name != "keep.txt" {
		t.Fatalf("docs: %+v", docs)
	}
	for _, c := range retrieve(t, ts, key, map[string]any{"query": "zebras lions", "memory": []map[string]any{{"name": "kb"}}}) {
		if c.DocumentName != "keep.txt" {
			t.Fatalf("deleted document still retrieved: %+v", c)
		}
	}
	after := storeKeys(t, ts, "chunk/", "vectors", "blob/", "job/")
	if after["chunk/"] >= before["chunk/"] || after["vectors"] != after["chunk/"] || after["blob/"] != 1 || after["job/"] != 0 {
		t.Fatalf("records before %v after %v", before, after)
	}

	mustStatus(t, ts.Do("DELETE", "/v1/memory/kb", key, nil), 200)
	waitIdle(t, ts)
	if left := storeKeys(t, ts, "chunk/", "blob/", "job/", "doc/", "idx/", "memory/"); left["chunk/"]+left["blob/"]+left["job/"]+left["doc/"]+left["idx/"]+left["memory/"] != 0 {
		t.Fatalf("memory delete left %v", left)
	}
	mustStatus(t, ts.Do("GET", "/v1/memory/kb/documents", key, nil), 404)
}

func TestRetryAfterProviderFailure(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"), servertest.FastRetries())
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "chunk_size": 1000, "chunk_overlap": 100})

	up.SetDefault(fake.Reply{Status: 401, Message: "Incorrect API key provided"})
	upload(t, ts, key, "kb", "a.txt", "text/plain", []byte("some text to embed"), nil)
	d := waitDoc(t, ts, key, "kb", "a.txt")
	if d.Status != "failed" || d.StatusMessage == nil || !strings.Contains(*d.StatusMessage, "Incorrect API key provided") {
		t.Fatalf("want failed with the provider's reason: %+v %v", d, d.StatusMessage)
	}
	mustStatus(t, ts.Do("GET", "/v1/memory/kb/documents/nope.txt/embeddings/retry", key, nil), 404)

	up.SetDefault(fake.Reply{})
	r := ts.Do("GET", "/v1/memory/kb/documents/a.txt/embeddings/retry", key, nil)
	mustStatus(t, r, 200)
	var out map[string]any
	r.JSON(t, &out)
	if out["success"] != true {
		t.Fatalf("retry: %s", r.Body)
	}
	waitCompleted(t, ts, key, "kb", "a.txt")
	if got := up.LastRequest().Header.Get("Authorization"); got != "Bearer sk-server" {
		t.Fatalf("provider key %q", got)
	}
	r = ts.Do("GET", "/v1/memory/kb/documents/a.txt/embeddings/retry", key, nil)
	mustStatus(t, r, 200)
	r.JSON(t, &out)
	if out["success"] != false || !strings.Contains(out["message"].(string), "nothing to retry") {
		t.Fatalf("retry of a completed document: %s", r.Body)
	}
	res := retrieve(t, ts, key, map[string]any{"query": "text", "memory": []map[string]any{{"name": "kb"}}})
	if len(res) != 1 {
		t.Fatalf("retrieve: %+v", res)
	}
}

func TestRateLimitsAreRetried(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	var mu sync.Mutex
	var waits []time.Duration
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"),
		servertest.WithMemory(func(c *memory.Config) {
			c.RetryMaxDelay = time.Minute
			c.Sleep = func(ctx context.Context, d time.Duration) error {
				mu.Lock()
				waits = append(waits, d)
				mu.Unlock()
				return nil
			}
		}))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "chunk_size": 1000, "chunk_overlap": 100})
	// The provider adapter gives up at once on a Retry-After longer than
	// its own cap; the ingestion worker then waits as told and tries again.
	limited := fake.Reply{Status: 429, Message: "Rate limit reached", RetryAfter: "7"}
	up.Enqueue(limited, limited, limited)
	upload(t, ts, key, "kb", "a.txt", "text/plain", []byte("rate limited text"), nil)
	waitCompleted(t, ts, key, "kb", "a.txt")
	mu.Lock()
	got := append([]time.Duration(nil), waits...)
	mu.Unlock()
	if len(got) != 3 || got[0] != 7*time.Second || got[2] != 7*time.Second {
		t.Fatalf("waits %v, want three of the provider's Retry-After (7s)", got)
	}

	// A provider that keeps failing fails the document with its reason.
	up.SetDefault(fake.Reply{Status: 503, Message: "upstream overloaded"})
	upload(t, ts, key, "kb", "b.txt", "text/plain", []byte("more text"), nil)
	d := waitDoc(t, ts, key, "kb", "b.txt")
	if d.Status != "failed" || !strings.Contains(*d.StatusMessage, "overloaded") {
		t.Fatalf("b.txt: %+v %v", d, *d.StatusMessage)
	}
}

func TestMissingProviderKeyThenRetry(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), ""))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb"})
	upload(t, ts, key, "kb", "a.txt", "text/plain", []byte("needs a key"), nil)
	d := waitDoc(t, ts, key, "kb", "a.txt")
	if d.Status != "failed" || !strings.Contains(*d.StatusMessage, "no API key for provider \"openai\"") {
		t.Fatalf("want a missing-key failure: %+v %v", d, *d.StatusMessage)
	}
	// The fix offered is one background ingestion can use: not a header.
	if msg := *d.StatusMessage; !strings.Contains(msg, "PUT /v1/keysets/openai") || !strings.Contains(msg, "HEARTH_OPENAI_API_KEY") ||
		!strings.Contains(msg, "an LB-LLM-Key header cannot serve it") || strings.Contains(msg, "send it in the LB-LLM-Key header") {
		t.Fatalf("missing-key fix: %s", msg)
	}
	mustStatus(t, ts.Do("PUT", "/v1/keysets/openai", key, map[string]any{"key": "sk-owner"}), 200)
	mustStatus(t, ts.Do("GET", "/v1/memory/kb/documents/a.txt/embeddings/retry", key, nil), 200)
	waitCompleted(t, ts, key, "kb", "a.txt")
	if got := up.LastRequest().Header.Get("Authorization"); got != "Bearer sk-owner" {
		t.Fatalf("provider key %q", got)
	}
}

func TestDocumentsThatCannotBeRead(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 500, "chunk_overlap": 50})
	cases := []struct{ file, contentType, want string }{
		{"corrupt.pdf", "application/pdf", "corrupt"},
		{"truncated.pdf", "application/pdf", "corrupt"},
		{"encrypted.pdf", "application/pdf", "encrypted"},
		{"scanned.pdf", "application/pdf", "no extractable text"},
		{"binary.txt", "text/plain", "binary"},
		{"header-only.csv", "text/csv", "no data rows"},
	}
	for _, tc := range cases {
		upload(t, ts, key, "kb", tc.file, tc.contentType, fixture(t, tc.file), nil)
	}
	// A PDF made of random bytes.
	upload(t, ts, key, "kb", "random.pdf", "application/pdf", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{0xff, 0x00, 0x13}, 300)...), nil)
	cases = append(cases, struct{ file, contentType, want string }{"random.pdf", "", "PDF"})
	for _, tc := range cases {
		d := waitDoc(t, ts, key, "kb", tc.file)
		if d.Status != "failed" || d.StatusMessage == nil || !strings.Contains(*d.StatusMessage, tc.want) {
			t.Errorf("%s: %s %v, want failed with %q", tc.file, d.Status, *d.StatusMessage, tc.want)
		}
	}
	for _, f := range []struct{ file, contentType, want string }{
		{"simple.pdf", "application/pdf", "quick brown fox"},
		{"people.csv", "text/csv", "Grace"},
		{"notes.md", "text/markdown", "Getting started"},
		{"main.go", "text/plain", "package"},
		{"sheet.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Lovelace"},
	} {
		upload(t, ts, key, "kb", f.file, f.contentType, fixture(t, f.file), nil)
		waitCompleted(t, ts, key, "kb", f.file)
		res := retrieve(t, ts, key, map[string]any{"query": f.want, "memory": []map[string]any{{"name": "kb", "filters": []any{"documentName", "Eq", f.file}}}, "topK": 1})
		if len(res) != 1 || !strings.Contains(res[0].Text, f.want) {
			t.Errorf("%s: %+v", f.file, res)
		}
	}
}

// Deleting or replacing while a worker is embedding leaves nothing behind.
func TestChangesDuringIngestion(t *testing.T) {
	for _, tc := range []string{"delete memory", "delete document", "replace document"} {
		t.Run(tc, func(t *testing.T) {
			gate := newGate("STOPHERE")
			ts := servertest.Start(t, withEmbedder(gate))
			key := servertest.AdminKey
			createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": "gate:x", "chunk_size": 100, "chunk_overlap": 0})
			upload(t, ts, key, "kb", "a.txt", "text/plain", bigDoc(12, "STOPHERE", 6), nil)
			waitEntered(t, gate)
			switch tc {
			case "delete memory":
				mustStatus(t, ts.Do("DELETE", "/v1/memory/kb", key, nil), 200)
			case "delete document":
				mustStatus(t, ts.Do("DELETE", "/v1/memory/kb/documents/a.txt", key, nil), 200)
			case "replace document":
				upload(t, ts, key, "kb", "a.txt", "text/plain", []byte("the replacement"), nil)
			}
			close(gate.release)
			if tc == "replace document" {
				if d := waitCompleted(t, ts, key, "kb", "a.txt"); d.Chunks != 1 {
					t.Fatalf("replacement: %+v", d)
				}
			}
			waitIdle(t, ts)
			keys := storeKeys(t, ts, "chunk/", "vectors", "blob/", "doc/", "idx/", "upload/")
			want := map[string]int{}
			if tc == "replace document" {
				want = map[string]int{"chunk/": 1, "vectors": 1, "blob/": 1, "doc/": 1}
			}
			for _, p := range []string{"chunk/", "vectors", "blob/", "doc/", "upload/"} {
				if keys[p] != want[p] {
					t.Fatalf("left behind: %v, want %v", keys, want)
				}
			}
			if tc == "delete memory" && keys["idx/"] != 0 {
				t.Fatalf("index records left: %v", keys)
			}
		})
	}
}
