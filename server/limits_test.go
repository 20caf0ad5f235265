package server_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/chunk"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/parse/sandbox"
	"github.com/hearth-dev/hearth/server/servertest"
)

// fuzzSeed reads a []byte or string seed of a committed fuzz corpus: the
// parser and chunker bombs (small inputs whose output once grew without
// bound) are kept there.
func fuzzSeed(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile("../" + path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	v := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(lines[1], "[]byte("), "string("), ")")
	s, err := strconv.Unquote(v)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

// withParseLimit makes the test server's parser bound text to max bytes.
func withParseLimit(t *testing.T, max int) servertest.Option {
	parser, err := servertest.NewParser(sandbox.Config{MaxOutput: max})
	if err != nil {
		t.Fatal(err)
	}
	return servertest.WithMemory(func(c *memory.Config) { c.Parse = parser.Parse })
}

// TestParserBombs: the CSV and xlsx bombs get 413 naming the output limit
// from /v1/parser, and fail the document with the same reason in a memory,
// instead of growing without bound.
func TestParserBombs(t *testing.T) {
	ts := servertest.Start(t, withParseLimit(t, 1<<20))
	key := servertest.AdminKey
	want := "parser output limit of 1048576 bytes (HEARTH_PARSE_MAX_OUTPUT)"
	// The CSV seed rendered 100 MB when each cell repeated its 20 KB
	// header; now its text is linear in its size.
	csvBomb := fuzzSeed(t, "engine/parse/testdata/fuzz/FuzzParseText/csv_header_bomb")
	status, out := parserRequest(t, ts, key, "bomb.csv", "", csvBomb, true)
	if content, _ := out["content"].(string); status != 200 || len(content) > 50*len(csvBomb) {
		t.Fatalf("CSV header bomb: %d, %d bytes", status, len(content))
	}
	// A 120 KB CSV whose 60 KB header every row repeats (1 GB of text
	// unbounded) and the xlsx seed (128 MB) pass the limit.
	big := strings.Repeat("h", 60_000) + "\n" + strings.Repeat("x\n", 30_000)
	xlsxBomb := fuzzSeed(t, "engine/parse/testdata/fuzz/FuzzParseXLSX/xlsx_shared_strings_bomb")
	for name, data := range map[string][]byte{"bomb.csv": []byte(big), "bomb.xlsx": xlsxBomb} {
		status, out := parserRequest(t, ts, key, name, "", data, true)
		e, _ := out["error"].(map[string]any)
		if msg, _ := e["message"].(string); status != 413 || e["code"] != "PAYLOAD_TOO_LARGE" || !strings.Contains(msg, want) {
			t.Errorf("%s: %d %v", name, status, e)
		}
	}
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	upload(t, ts, key, "kb", "bomb.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", xlsxBomb, nil)
	if d := waitDoc(t, ts, key, "kb", "bomb.xlsx"); d.Status != "failed" || !strings.Contains(statusMessage(d), want) {
		t.Fatalf("xlsx bomb in a memory: %+v %s", d, statusMessage(d))
	}
}

// TestChunkerBomb: overlap just below the length (40 KB gave 400 MB) is
// refused naming the rule; the largest overlap allowed keeps the answer
// within a few times the content.
func TestChunkerBomb(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	content := string(fuzzSeed(t, "engine/chunk/testdata/fuzz/FuzzSplit/overlap_bomb"))
	for _, c := range [][2]int{{30000, 29999}, {2000, 1999}, {1024, 513}} {
		r := ts.Do("POST", "/v1/chunker", key, map[string]any{"content": content, "chunkMaxLength": c[0], "chunkOverlap": c[1]})
		if _, msg := errorOf(t, r); r.Status != 400 || !strings.HasPrefix(msg, "chunkOverlap: must be at most half of chunkMaxLength") {
			t.Errorf("%v: %d %s", c, r.Status, r.Body)
		}
	}
	r := ts.Do("POST", "/v1/chunker", key, map[string]any{"content": content, "chunkMaxLength": 1024, "chunkOverlap": 512})
	mustStatus(t, r, 200)
	if len(r.Body) > 5*len(content)+4096 {
		t.Fatalf("%d bytes of answer for %d bytes of content", len(r.Body), len(content))
	}
}

// TestMemoryOverlapRule: a memory's chunk_overlap is at most half its
// chunk_size; without one, a quarter of a small chunk_size is taken.
func TestMemoryOverlapRule(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	r := ts.Do("POST", "/v1/memory", key, map[string]any{"name": "m", "chunk_size": 2000, "chunk_overlap": 1999})
	if _, msg := errorOf(t, r); r.Status != 400 || !strings.HasPrefix(msg, "chunk_overlap: must be at most half of chunk_size (1000), got 1999") {
		t.Fatalf("overlap 1999 of 2000: %d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/v1/memory", key, map[string]any{"name": "m", "chunk_size": 2000, "chunk_overlap": 1000})
	mustStatus(t, r, 200)
	r = ts.Do("POST", "/v1/memory", key, map[string]any{"name": "d", "chunk_size": 3000})
	mustStatus(t, r, 200)
	var m map[string]any
	r.JSON(t, &m)
	if m["chunk_overlap"] != 750.0 {
		t.Fatalf("derived overlap: %v", m["chunk_overlap"])
	}
}

// TestQuotaCountsChunkBytes: the byte quota counts the chunk texts a
// document stores besides its upload, so overlap cannot multiply storage
// past it; deleting the document gives both back.
func TestQuotaCountsChunkBytes(t *testing.T) {
	var quotas *engine.Quotas
	ts := servertest.Start(t, servertest.WithMemory(func(c *memory.Config) {
		quotas = engine.NewQuotas(c.Store, 0, 5000)
		c.Quotas = quotas
	}))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 100, "chunk_overlap": 50})
	text := strings.Repeat("Overlap stores each word about twice. ", 30) // 1140 bytes
	upload(t, ts, key, "kb", "a.txt", "text/plain", []byte(text), nil)
	waitCompleted(t, ts, key, "kb", "a.txt")
	chunks := int64(0)
	for _, c := range chunk.Split(text, 100, 50) {
		chunks += int64(len(c))
	}
	if u, _ := quotas.Usage(t.Context(), "admin"); u.Bytes != int64(len(text))+chunks || chunks < int64(len(text)) {
		t.Fatalf("usage %+v, want %d upload + %d chunk bytes", u, len(text), chunks)
	}
	// 1.1 KB more upload fits the 5000 bytes; its 2.2 KB of chunks do not.
	upload(t, ts, key, "kb", "b.txt", "text/plain", []byte(text), nil)
	d := waitDoc(t, ts, key, "kb", "b.txt")
	if d.Status != "failed" || !strings.Contains(statusMessage(d), "the document's chunks: storage quota exceeded") {
		t.Fatalf("b.txt: %+v %s", d, statusMessage(d))
	}
	mustStatus(t, ts.Do("DELETE", "/v1/memory/kb/documents/a.txt", key, nil), 200)
	mustStatus(t, ts.Do("DELETE", "/v1/memory/kb/documents/b.txt", key, nil), 200)
	if u, _ := quotas.Usage(t.Context(), "admin"); u != (engine.StorageUsage{}) {
		t.Fatalf("usage after deletes %+v", u)
	}
}

// parseGate is a parser that blocks until its context ends, as a parse
// that takes the server down would.
type parseGate struct{ entered chan struct{} }

func (g *parseGate) parse(ctx context.Context, _, _ string, _ []byte) (string, error) {
	g.entered <- struct{}{}
	<-ctx.Done()
	return "", ctx.Err()
}

// TestCrashesWhileParsingFailTheDocument: the attempt is stored before the
// parse starts, so a server that dies parsing a document three times fails
// it naming the parse instead of looping; a retry starts a fresh count and
// the output limit still applies.
func TestCrashesWhileParsingFailTheDocument(t *testing.T) {
	dir := t.TempDir()
	key := servertest.AdminKey
	gate := &parseGate{entered: make(chan struct{}, 1)}
	withGate := servertest.WithMemory(func(c *memory.Config) { c.Parse = gate.parse })
	ts := servertest.StartDir(t, dir, withGate)
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	bomb := []byte(strings.Repeat("h", 60_000) + "\n" + strings.Repeat("x\n", 30_000))
	upload(t, ts, key, "kb", "bomb.csv", "text/csv", bomb, nil)
	for i := 0; i < 3; i++ {
		select {
		case <-gate.entered:
		case <-time.After(20 * time.Second):
			t.Fatal("the parse did not start")
		}
		ts.Crash()
		ts = servertest.StartDir(t, dir, withGate)
	}
	d := waitDoc(t, ts, key, "kb", "bomb.csv")
	if d.Status != "failed" || !strings.Contains(statusMessage(d), "interrupted 3 times while parsing") {
		t.Fatalf("after three crashes: %+v %s", d, statusMessage(d))
	}
	ts.Stop()
	ts = servertest.StartDir(t, dir, withParseLimit(t, 1<<20))
	mustStatus(t, ts.Do("GET", "/v1/memory/kb/documents/bomb.csv/embeddings/retry", key, nil), 200)
	d = waitDoc(t, ts, key, "kb", "bomb.csv")
	if d.Status != "failed" || !strings.Contains(statusMessage(d), "parser output limit of 1048576 bytes") {
		t.Fatalf("after retry: %+v %s", d, statusMessage(d))
	}
}

func statusMessage(d docItem) string {
	if d.StatusMessage == nil {
		return ""
	}
	return *d.StatusMessage
}
