package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

// seedRetrieval makes two memories of small one-chunk documents with meta.
func seedRetrieval(t *testing.T, ts *servertest.Server, key string) {
	t.Helper()
	createMemory(t, ts, key, map[string]any{"name": "animals", "embedding_model": hashModel, "chunk_size": 2000, "chunk_overlap": 0, "top_k": 2})
	createMemory(t, ts, key, map[string]any{"name": "plants", "embedding_model": hashModel, "chunk_size": 2000, "chunk_overlap": 0})
	docs := []struct {
		mem, name, text string
		meta            map[string]string
	}{
		{"animals", "zebra.txt", "Zebras are striped horses of the African savannah.", map[string]string{"kind": "mammal", "region": "africa"}},
		{"animals", "lion.txt", "Lions are big cats that hunt zebras on the savannah.", map[string]string{"kind": "mammal", "region": "africa"}},
		{"animals", "penguin.txt", "Penguins are flightless birds of the southern ice.", map[string]string{"kind": "bird", "region": "antarctica"}},
		{"animals", "eagle.txt", "Eagles are birds of prey with sharp eyes.", map[string]string{"kind": "bird", "region": "europe"}},
		{"plants", "baobab.txt", "The baobab tree grows on the African savannah.", map[string]string{"kind": "tree", "region": "africa"}},
		{"plants", "moss.txt", "Moss grows in damp forests.", nil},
	}
	for _, d := range docs {
		upload(t, ts, key, d.mem, d.name, "text/plain", []byte(d.text), d.meta)
	}
	for _, d := range docs {
		waitCompleted(t, ts, key, d.mem, d.name)
	}
}

func names(res []chunkOut) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.DocumentName
	}
	return out
}

func TestRetrieveRankingAndFilters(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	seedRetrieval(t, ts, key)
	mem := func(name string, filters any) map[string]any {
		m := map[string]any{"name": name}
		if filters != nil {
			m["filters"] = filters
		}
		return m
	}
	// Merged across memories and ranked.
	res := retrieve(t, ts, key, map[string]any{"query": "African savannah", "memory": []any{mem("animals", nil), mem("plants", nil)}})
	if len(res) != 6 {
		t.Fatalf("want every chunk (topK 20): %v", names(res))
	}
	for i := 1; i < len(res); i++ {
		if res[i].Similarity > res[i-1].Similarity || res[i].Similarity < 0 || res[0].Similarity > 1 {
			t.Fatalf("not ranked by similarity in [0,1]: %+v", res)
		}
	}
	top3 := strings.Join(names(res[:3]), ",")
	for _, n := range []string{"zebra.txt", "lion.txt", "baobab.txt"} {
		if !strings.Contains(top3, n) {
			t.Fatalf("top 3 %s should hold the savannah documents", top3)
		}
	}
	if res[0].MemoryName == "" || res[0].Meta["region"] != "africa" {
		t.Fatalf("result: %+v", res[0])
	}
	// topK bounds the merged result.
	if res := retrieve(t, ts, key, map[string]any{"query": "savannah", "memory": []any{mem("animals", nil), mem("plants", nil)}, "topK": 2}); len(res) != 2 {
		t.Fatalf("topK 2: %v", names(res))
	}
	filterCases := []struct {
		name    string
		filters any
		want    []string
	}{
		{"Eq", []any{"kind", "Eq", "bird"}, []string{"eagle.txt", "penguin.txt"}},
		{"NotEq", []any{"kind", "NotEq", "bird"}, []string{"lion.txt", "zebra.txt"}},
		{"In", []any{"region", "In", []string{"europe", "antarctica"}}, []string{"eagle.txt", "penguin.txt"}},
		{"NotIn", []any{"region", "NotIn", []string{"africa"}}, []string{"eagle.txt", "penguin.txt"}},
		{"And", []any{"And", []any{[]any{"kind", "Eq", "mammal"}, []any{"documentName", "Eq", "lion.txt"}}}, []string{"lion.txt"}},
		{"nested Or", []any{"Or", []any{[]any{"region", "Eq", "europe"}, []any{"And", []any{[]any{"kind", "Eq", "mammal"}, []any{"documentName", "NotEq", "lion.txt"}}}}}, []string{"eagle.txt", "zebra.txt"}},
		{"operator first", []any{"Eq", []any{"region", "antarctica"}}, []string{"penguin.txt"}},
		{"matches nothing", []any{"kind", "Eq", "fish"}, nil},
	}
	for _, tc := range filterCases {
		res := retrieve(t, ts, key, map[string]any{"query": "animals birds savannah", "memory": []any{mem("animals", tc.filters)}})
		got := names(res)
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(strings.Join(got, ","), w) {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			}
		}
	}
	// Filters apply per memory.
	res = retrieve(t, ts, key, map[string]any{"query": "savannah", "memory": []any{mem("animals", []any{"kind", "Eq", "bird"}), mem("plants", nil)}})
	if strings.Contains(strings.Join(names(res), ","), "zebra") || !strings.Contains(strings.Join(names(res), ","), "baobab") {
		t.Fatalf("per-memory filters: %v", names(res))
	}
}

func TestRetrieveValidation(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	cases := []struct {
		name   string
		body   map[string]any
		status int
		field  string
	}{
		{"missing query", map[string]any{"memory": []any{map[string]any{"name": "kb"}}}, 400, "query"},
		{"blank query", map[string]any{"query": "  ", "memory": []any{map[string]any{"name": "kb"}}}, 400, "query"},
		{"long query", map[string]any{"query": strings.Repeat("q", 10001), "memory": []any{map[string]any{"name": "kb"}}}, 400, "query"},
		{"missing memory", map[string]any{"query": "q"}, 400, "memory"},
		{"empty memory", map[string]any{"query": "q", "memory": []any{}}, 400, "memory"},
		{"memory without name", map[string]any{"query": "q", "memory": []any{map[string]any{}}}, 400, "memory[0].name"},
		{"topK zero", map[string]any{"query": "q", "memory": []any{map[string]any{"name": "kb"}}, "topK": 0}, 400, "topK"},
		{"topK too big", map[string]any{"query": "q", "memory": []any{map[string]any{"name": "kb"}}, "topK": 101}, 400, "topK"},
		{"bad filter op", map[string]any{"query": "q", "memory": []any{map[string]any{"name": "kb", "filters": []any{"a", "Like", "b"}}}}, 400, "memory[0].filters"},
		{"bad filter shape", map[string]any{"query": "q", "memory": []any{map[string]any{"name": "kb", "filters": map[string]any{"a": 1}}}}, 400, "memory[0].filters"},
		{"unknown memory", map[string]any{"query": "q", "memory": []any{map[string]any{"name": "nope"}}}, 404, ""},
	}
	for _, tc := range cases {
		r := ts.Do("POST", "/v1/memory/retrieve", key, tc.body)
		_, msg := errorOf(t, r)
		if r.Status != tc.status || !strings.HasPrefix(msg, tc.field) {
			t.Errorf("%s: %d %s, want %d naming %q", tc.name, r.Status, r.Body, tc.status, tc.field)
		}
	}
	for _, tc := range []struct {
		name   string
		path   string
		body   map[string]any
		status int
	}{
		{"beta without ownerLogin", "/beta/memory/retrieve", map[string]any{"query": "q", "memory": []any{map[string]any{"name": "kb"}}}, 400},
		{"beta ok", "/beta/memory/retrieve", map[string]any{"ownerLogin": "admin", "query": "q", "memory": []any{map[string]any{"name": "kb"}}, "topK": 100}, 200},
		{"beta one ok", "/beta/memorysets/admin/kb/retrieve", map[string]any{"query": "q", "topK": 1}, 200},
		{"beta one topK", "/beta/memorysets/admin/kb/retrieve", map[string]any{"query": "q", "topK": 500}, 400},
		{"beta one unknown memory", "/beta/memorysets/admin/nope/retrieve", map[string]any{"query": "q"}, 404},
	} {
		if r := ts.Do("POST", tc.path, key, tc.body); r.Status != tc.status {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
		}
	}
}

func TestKeywordOnlyAndHybridRanking(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kw", "embedding_model": "hearth:bm25", "chunk_size": 2000, "chunk_overlap": 0})
	createMemory(t, ts, key, map[string]any{"name": "hy", "embedding_model": hashModel, "chunk_size": 2000, "chunk_overlap": 0})
	docs := map[string]string{
		"error.txt":   "Error code HX-4711 means the flux capacitor overheated.",
		"general.txt": "The flux capacitor is the heart of the machine and the machine needs the flux capacitor.",
		"other.txt":   "Unrelated text about gardening and tomatoes.",
	}
	for _, m := range []string{"kw", "hy"} {
		for name, text := range docs {
			upload(t, ts, key, m, name, "text/plain", []byte(text), nil)
		}
		for name := range docs {
			waitCompleted(t, ts, key, m, name)
		}
	}
	for _, m := range []string{"kw", "hy"} {
		res := retrieve(t, ts, key, map[string]any{"query": "what does HX-4711 mean", "memory": []any{map[string]any{"name": m}}, "topK": 3})
		if len(res) == 0 || res[0].DocumentName != "error.txt" {
			t.Fatalf("%s: the exact code must rank first: %v", m, names(res))
		}
		if res[0].Similarity <= 0 || res[0].Similarity > 1 {
			t.Fatalf("%s: similarity %v", m, res[0].Similarity)
		}
	}
	// A keyword-only memory returns only chunks sharing a term.
	res := retrieve(t, ts, key, map[string]any{"query": "tomatoes", "memory": []any{map[string]any{"name": "kw"}}})
	if len(res) != 1 || res[0].DocumentName != "other.txt" {
		t.Fatalf("bm25: %v", names(res))
	}
	// Embed refuses the keyword-only model.
	r := ts.Do("POST", "/v1/embed", key, map[string]any{"chunks": []string{"x"}, "embeddingModel": "hearth:bm25"})
	if _, msg := errorOf(t, r); r.Status != 400 || !strings.Contains(msg, "keyword-only") {
		t.Fatalf("embed bm25: %d %s", r.Status, r.Body)
	}
}

func TestRetrieveForRun(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	seedRetrieval(t, ts, key)
	ctx := context.Background()
	chunks, err := ts.Memory.RetrieveForRun(ctx, "admin", []engine.MemoryRef{{Name: "animals"}, {Name: "plants"}}, "flightless birds of the southern ice")
	if err != nil {
		t.Fatal(err)
	}
	// animals has top_k 2, plants the default 10 (two documents).
	if len(chunks) != 4 {
		t.Fatalf("chunks: %+v", chunks)
	}
	for i, c := range chunks {
		if c.Text == "" || c.DocName == "" {
			t.Fatalf("chunk %d: %+v", i, chunks)
		}
	}
	if chunks[0].DocName != "penguin.txt" {
		t.Fatalf("best chunk first: %+v", chunks)
	}
	if _, err := ts.Memory.RetrieveForRun(ctx, "admin", []engine.MemoryRef{{Name: "nope"}}, "q"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("missing memory: %v", err)
	}
	if chunks, err := ts.Memory.RetrieveForRun(ctx, "admin", []engine.MemoryRef{{Name: "animals"}}, ""); err != nil || chunks != nil {
		t.Fatalf("empty query: %v %v", chunks, err)
	}
	ok, err := ts.Memory.MemoryExists(ctx, "admin", "plants")
	if err != nil || !ok {
		t.Fatalf("exists: %v %v", ok, err)
	}
	if ok, _ := ts.Memory.MemoryExists(ctx, "bob", "plants"); ok {
		t.Fatal("bob has no memories")
	}
}
