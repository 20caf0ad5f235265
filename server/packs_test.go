package server_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
	"github.com/klauspost/compress/zstd"
)

// packQueries are asked of both servers of a round trip.
var packQueries = []string{"owls hunt at night", "tides and the moon", "honey bees", "bread needs yeast", "zebra"}

// seedPackSource starts a server with the gate embedder and a memory "kb"
// of three documents cut into many chunks, and returns it with its embedder.
func seedPackSource(t *testing.T) (*servertest.Server, *gateEmbedder) {
	t.Helper()
	g := newGate("")
	ts := servertest.Start(t, withEmbedder(g))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "description": "animals", "embedding_model": "gate:v1",
		"chunk_size": 120, "chunk_overlap": 20, "top_k": 4})
	docs := map[string]string{
		"owls.md":  "# Owls\n\nOwls hunt at night. Their hearing is sharp and their flight is silent.\n\n## Eyes\n\nOwls cannot move their eyes; they turn their heads instead, up to 270 degrees.",
		"tides.md": "# Tides\n\nThe moon pulls the oceans and makes the tides. Spring tides come at full and new moon.\n\nNeap tides come between them, when the sun and the moon pull at right angles.",
		"bees.md":  "# Bees\n\nHoney bees dance to tell where flowers are. A hive holds one queen.\n\nBees make honey from nectar and keep it in wax cells; yeast in it would spoil it.",
	}
	for name, text := range docs {
		upload(t, ts, key, "kb", name, "text/markdown", []byte(text), map[string]string{"topic": strings.TrimSuffix(name, ".md")})
	}
	for name := range docs {
		waitCompleted(t, ts, key, "kb", name)
	}
	waitIdle(t, ts)
	return ts, g
}

func exportPack(t *testing.T, ts *servertest.Server, key, name string) []byte {
	t.Helper()
	r := ts.Do("GET", "/v1/memory/"+name+"/export", key, nil)
	mustStatus(t, r, 200)
	if ct := r.Header.Get("Content-Type"); ct != "application/vnd.hearth.memory-pack" {
		t.Fatalf("export content type %q", ct)
	}
	return r.Body
}

func retrieveAll(t *testing.T, ts *servertest.Server, mem string) [][]chunkOut {
	t.Helper()
	var out [][]chunkOut
	for _, q := range packQueries {
		out = append(out, retrieve(t, ts, servertest.AdminKey, map[string]any{"query": q, "memory": []any{map[string]any{"name": mem}}, "topK": 6}))
	}
	return out
}

// TestMemoryPackRoundTrip: a pack exported from one server and imported
// into another gives the same documents and the same retrieval (chunks,
// order and scores), and the importing server embeds nothing; an existing
// name is a conflict unless renamed or replaced.
func TestMemoryPackRoundTrip(t *testing.T) {
	src, _ := seedPackSource(t)
	key := servertest.AdminKey
	pack := exportPack(t, src, key, "kb")

	g := newGate("")
	dst := servertest.Start(t, withEmbedder(g))
	r := dst.Do("POST", "/v1/memory/import", key, pack)
	mustStatus(t, r, 200)
	var res struct {
		Name           string `json:"name"`
		EmbeddingModel string `json:"embedding_model"`
		Documents      int    `json:"documents"`
		Chunks         int    `json:"chunks"`
		Replaced       bool   `json:"replaced"`
	}
	r.JSON(t, &res)
	if res.Name != "kb" || res.EmbeddingModel != "gate:v1" || res.Documents != 3 || res.Chunks < 6 || res.Replaced {
		t.Fatalf("import: %s", r.Body)
	}
	if n := g.calls.Load(); n != 0 {
		t.Fatalf("the import embedded %d batches; it must embed nothing", n)
	}
	srcDocs, dstDocs := listDocs(t, src, key, "kb"), listDocs(t, dst, key, "kb")
	if len(dstDocs) != 3 || !reflect.DeepEqual(srcDocs, dstDocs) {
		t.Fatalf("documents differ:\nsource %+v\nimport %+v", srcDocs, dstDocs)
	}
	var srcMem, dstMem []map[string]any
	src.Do("GET", "/v1/memory", key, nil).JSON(t, &srcMem)
	dst.Do("GET", "/v1/memory", key, nil).JSON(t, &dstMem)
	for _, k := range []string{"description", "embedding_model", "chunk_size", "chunk_overlap", "top_k"} {
		if srcMem[0][k] != dstMem[0][k] {
			t.Fatalf("memory setting %s: source %v, import %v", k, srcMem[0][k], dstMem[0][k])
		}
	}
	want := retrieveAll(t, src, "kb")
	got := retrieveAll(t, dst, "kb")
	for i := range want {
		if len(want[i]) == 0 && packQueries[i] != "zebra" {
			t.Fatalf("query %q found nothing on the source", packQueries[i])
		}
		if !reflect.DeepEqual(want[i], got[i]) {
			t.Fatalf("query %q:\nsource %+v\nimport %+v", packQueries[i], want[i], got[i])
		}
	}
	if n := g.calls.Load(); n != int64(len(packQueries)) {
		t.Fatalf("the import server embedded %d batches for %d queries", n, len(packQueries))
	}

	r = dst.Do("POST", "/v1/memory/import", key, pack)
	mustStatus(t, r, 409)
	if code, msg := errorOf(t, r); code != engine.CodeConflict || !strings.Contains(msg, "replace") {
		t.Fatalf("second import: %s %s", code, msg)
	}
	mustStatus(t, dst.Do("POST", "/v1/memory/import?name=kb-copy", key, pack), 200)
	if got := retrieveAll(t, dst, "kb-copy"); !sameChunks(want, got) {
		t.Fatalf("renamed import retrieves differently: %+v", got)
	}
	upload(t, dst, key, "kb", "extra.md", "text/markdown", []byte("# Extra\n\nzebra stripes"), nil)
	waitCompleted(t, dst, key, "kb", "extra.md")
	r = dst.Do("POST", "/v1/memory/import?replace=true", key, pack)
	mustStatus(t, r, 200)
	r.JSON(t, &res)
	if !res.Replaced {
		t.Fatalf("replace: %s", r.Body)
	}
	waitIdle(t, dst)
	if docs := listDocs(t, dst, key, "kb"); len(docs) != 3 || findDoc(docs, "extra.md") != nil {
		t.Fatalf("replaced memory has documents %+v", docs)
	}
	if got := retrieveAll(t, dst, "kb"); !reflect.DeepEqual(want, got) {
		t.Fatalf("replaced memory retrieves differently: %+v", got)
	}
}

// sameChunks compares retrievals except the memory name.
func sameChunks(a, b [][]chunkOut) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			x, y := a[i][j], b[i][j]
			x.MemoryName, y.MemoryName = "", ""
			if !reflect.DeepEqual(x, y) {
				return false
			}
		}
	}
	return true
}

// assertNothingImported checks that a refused import left no memory, no
// job and no record of any memory's documents or chunks.
func assertNothingImported(t *testing.T, ts *servertest.Server, what string) {
	t.Helper()
	waitIdle(t, ts)
	var mems []map[string]any
	ts.Do("GET", "/v1/memory", servertest.AdminKey, nil).JSON(t, &mems)
	if len(mems) != 0 {
		t.Fatalf("%s: memories %v after a refused import", what, mems)
	}
	for _, prefix := range []string{"doc/", "chunk/", "idx/", "job/"} {
		n := 0
		err := ts.Store.View(context.Background(), func(tx engine.Tx) error {
			return tx.Scan(prefix, "", func(key string, _ []byte) error {
				if !strings.HasSuffix(key, "/seq") && !strings.HasSuffix(key, "/kwseq") {
					n++
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("%s: %d keys left under %s", what, n, prefix)
		}
	}
}

// TestMemoryPackRefusals: a truncated pack, a pack whose content was
// altered, garbage, and a pack of a newer version are refused with a 400
// naming the problem, and leave nothing behind.
func TestMemoryPackRefusals(t *testing.T) {
	src, _ := seedPackSource(t)
	key := servertest.AdminKey
	pack := exportPack(t, src, key, "kb")
	dst := servertest.Start(t, withEmbedder(newGate("")))

	content := unzstd(t, pack)
	i := strings.Index(string(content), "Neap tides")
	if i < 0 {
		t.Fatal("the pack does not hold the chunk text")
	}
	altered := append([]byte{}, content...)
	altered[i] = 'K'
	cases := []struct {
		name, want string
		body       []byte
	}{
		{"truncated", "truncated", pack[:len(pack)*2/3]},
		{"truncated content", "truncated", zstdOf(t, content[:len(content)-40])},
		{"altered", "checksum mismatch", zstdOf(t, altered)},
		{"garbage", "zstd", []byte("this is not a pack at all, just text")},
		{"not a pack", "not a Hearth memory pack", zstdOf(t, []byte("H\x02{}"))},
		{"newer version", "pack version 2 is not supported", zstdOf(t, packRecord('H', `{"format":"hearth-memory-pack","version":2}`))},
	}
	for _, c := range cases {
		r := dst.Do("POST", "/v1/memory/import", key, c.body)
		if r.Status != 400 || !strings.Contains(string(r.Body), c.want) || !strings.Contains(string(r.Body), `"pack`) {
			t.Fatalf("%s: want 400 naming the pack and %q, got %d %s", c.name, c.want, r.Status, r.Body)
		}
		assertNothingImported(t, dst, c.name)
	}
}

// TestMemoryPackReplaceNeedsSameModel: replace refuses a memory with
// another embedding model, and keeps it.
func TestMemoryPackReplaceNeedsSameModel(t *testing.T) {
	src, _ := seedPackSource(t)
	key := servertest.AdminKey
	pack := exportPack(t, src, key, "kb")
	dst := servertest.Start(t, withEmbedder(newGate("")))
	createMemory(t, dst, key, map[string]any{"name": "kb", "embedding_model": "hearth:bm25"})
	r := dst.Do("POST", "/v1/memory/import?replace=true", key, pack)
	mustStatus(t, r, 409)
	if !strings.Contains(string(r.Body), "embedding_model") || !strings.Contains(string(r.Body), "hearth:bm25") {
		t.Fatalf("model mismatch: %s", r.Body)
	}
	var mems []map[string]any
	dst.Do("GET", "/v1/memory", key, nil).JSON(t, &mems)
	if len(mems) != 1 || mems[0]["embedding_model"] != "hearth:bm25" {
		t.Fatalf("memories after a refused replace: %v", mems)
	}
}

// TestMemoryPackScopeAndLimit: a key scoped to other memories can neither
// export nor import this one, a read-only key cannot import, another owner
// cannot export it, and a pack over HEARTH_MAX_PACK_BYTES is a 413.
func TestMemoryPackScopeAndLimit(t *testing.T) {
	src, _ := seedPackSource(t)
	pack := exportPack(t, src, admin, "kb")
	other := scopedKey(t, src, map[string]any{"memories": []string{"m1"}})
	refused(t, "export kb", src.Do("GET", "/v1/memory/kb/export", other, nil), 403, "memories")
	refused(t, "import as kb", src.Do("POST", "/v1/memory/import?name=kb2", other, pack), 403, "memories")
	ro := scopedKey(t, src, map[string]any{"read_only": true})
	refused(t, "read-only import", src.Do("POST", "/v1/memory/import?name=m1", ro, pack), 403, "read_only")
	mustStatus(t, src.Do("POST", "/v1/memory/import?name=m1", other, pack), 200)
	stranger := src.UserWithKey("stranger")
	mustStatus(t, src.Do("GET", "/v1/memory/kb/export", stranger, nil), 404)
	mustStatus(t, src.Do("POST", "/v1/memory/import?replace=maybe", admin, pack), 400)

	small := servertest.Start(t, withEmbedder(newGate("")), servertest.WithConfig(func(c *server.Config) { c.MaxPackBytes = int64(len(pack) / 2) }))
	r := small.Do("POST", "/v1/memory/import", admin, pack)
	mustStatus(t, r, 413)
	assertNothingImported(t, small, "over the limit")

	quota := servertest.Start(t, withEmbedder(newGate("")), func(c *app.Config) { c.QuotaMaxDocuments = 2 })
	r = quota.Do("POST", "/v1/memory/import", admin, pack)
	if code, _ := errorOf(t, r); r.Status/100 != 4 || code != engine.CodeUsageExceeded {
		t.Fatalf("import past the document quota: %d %s", r.Status, r.Body)
	}
	assertNothingImported(t, quota, "past the quota")
	var usage struct {
		Documents int64 `json:"documents"`
		Bytes     int64 `json:"bytes"`
	}
	if err := quota.Store.View(context.Background(), func(tx engine.Tx) error {
		err := tx.Get("usage/admin", &usage)
		if engine.IsNotFound(err) {
			return nil
		}
		return err
	}); err != nil || usage.Documents != 0 || usage.Bytes != 0 {
		t.Fatalf("usage after a refused import: %+v %v", usage, err)
	}
}

// packRecord is one record of the pack format (docs/memories-and-retrieval.md#memory-packs).
func packRecord(kind byte, payload string) []byte {
	b := binary.AppendUvarint([]byte{kind}, uint64(len(payload)))
	return append(b, payload...)
}

func zstdOf(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func unzstd(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := zstd.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMemoryPackKeywordOnly: a keyword-only memory (no vectors) moves
// with the same retrieval.
func TestMemoryPackKeywordOnly(t *testing.T) {
	src := servertest.Start(t)
	golden := seedGolden(t, src, admin)
	pack := exportPack(t, src, admin, "golden")
	dst := servertest.Start(t)
	mustStatus(t, dst.Do("POST", "/v1/memory/import", admin, pack), 200)
	for _, g := range golden {
		body := map[string]any{"query": g.Query, "memory": []any{map[string]any{"name": "golden"}}, "topK": 5}
		a, b := retrieve(t, src, admin, body), retrieve(t, dst, admin, body)
		if len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Fatalf("query %q:\nsource %+v\nimport %+v", g.Query, a, b)
		}
	}
}

// TestMemoryPackCluster: on two nodes of one database, a pack imported
// through one node is retrieved alike through the other (the import writes
// through the index change log the other node follows), and the other
// node exports it again.
func TestMemoryPackCluster(t *testing.T) {
	src, _ := seedPackSource(t)
	pack := exportPack(t, src, admin, "kb")
	want := retrieveAll(t, src, "kb")
	nodes := servertest.StartCluster(t, 2, withEmbedder(newGate("")))
	a, b := nodes[0], nodes[1]
	mustStatus(t, a.Do("POST", "/v1/memory/import", admin, pack), 200)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := retrieveAll(t, b, "kb")
		if reflect.DeepEqual(want, got) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node B retrieves differently:\nsource %+v\nnode B %+v", want, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	again := exportPack(t, b, admin, "kb")
	mustStatus(t, b.Do("POST", "/v1/memory/import?name=kb-again", admin, again), 200)
	if got := retrieveAll(t, a, "kb-again"); !sameChunks(want, got) {
		t.Fatalf("a pack exported by node B retrieves differently: %+v", got)
	}
}
