package server_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine/rank"
	"github.com/hearth-dev/hearth/server/servertest"
)

// seedGolden makes the keyword-only memory "golden" of the documents of
// the golden set in testdata/eval and returns the set.
func seedGolden(t *testing.T, ts *servertest.Server, key string) []rank.GoldenCase {
	t.Helper()
	createMemory(t, ts, key, map[string]any{"name": "golden", "embedding_model": "hearth:bm25", "chunk_size": 2000, "chunk_overlap": 0})
	files := map[string]string{"owls.md": "../testdata/eval/owls.md", "bees.md": "../testdata/eval/bees.md",
		"tides.md": "../testdata/eval/tides.md", "bread.md": "../testdata/eval/bread.md",
		"notes.md": "../testdata/docs/notes.md", "people.csv": "../testdata/docs/people.csv"}
	for name, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ct := "text/markdown"
		if filepath.Ext(name) == ".csv" {
			ct = "text/csv"
		}
		upload(t, ts, key, "golden", name, ct, data, nil)
	}
	for name := range files {
		waitCompleted(t, ts, key, "golden", name)
	}
	f, err := os.Open("../testdata/eval/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, err := rank.ReadGolden(f)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

type evalOut struct {
	Memory  string `json:"memory"`
	Queries int    `json:"queries"`
	K       int    `json:"k"`
	Results []struct {
		Name      string            `json:"name"`
		RecallAtK float64           `json:"recall_at_k"`
		MRR       float64           `json:"mrr"`
		NDCGAt10  float64           `json:"ndcg_at_10"`
		PerQuery  []rank.QueryScore `json:"per_query"`
	} `json:"results"`
}

// TestMemoryEval: the numbers of POST /v1/memory/{name}/eval on the golden
// set, checked by hand from the rankings the keyword index gives.
func TestMemoryEval(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	golden := seedGolden(t, ts, key)
	r := ts.Do("POST", "/v1/memory/golden/eval", key, map[string]any{"golden": golden, "k": 2,
		"settings": []map[string]any{{"name": "keyword"}, {"name": "top1", "topK": 1}}})
	mustStatus(t, r, 200)
	var out evalOut
	r.JSON(t, &out)
	if out.Memory != "golden" || out.Queries != 6 || out.K != 2 || len(out.Results) != 2 {
		t.Fatalf("eval: %s", r.Body)
	}
	// The rankings BM25 gives (each query's words are in one document only,
	// except "yeast and flowers": bees.md then bread.md).
	wantRanking := [][]string{{"bees.md"}, {"tides.md"}, {"people.csv"}, {"owls.md"}, {"bees.md", "bread.md"}, {"bees.md", "bread.md"}}
	for i, q := range out.Results[0].PerQuery {
		if strings.Join(q.Ranking, ",") != strings.Join(wantRanking[i], ",") {
			t.Fatalf("query %q ranked %v, want %v", q.Query, q.Ranking, wantRanking[i])
		}
	}
	// By hand, with k = 2 and g = 1/log2(3) (the gain of rank 2):
	//   bees, tides: recall 1, RR 1, nDCG 1.
	//   program: relevant {people.csv, notes.md}, only people.csv at rank 1:
	//     recall 1/2, RR 1, nDCG 1/(1+g).
	//   owls: relevant bread.md, not retrieved: 0, 0, 0.
	//   yeast -> {bees, bread}: both in the first 2: 1, 1, 1.
	//   yeast -> {bread} at rank 2: recall 1, RR 1/2, nDCG g.
	g := 1 / math.Log2(3)
	check := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	kw := out.Results[0]
	check("keyword recall@2", kw.RecallAtK, (1+1+0.5+0+1+1)/6.0)
	check("keyword MRR", kw.MRR, (1+1+1+0+1+0.5)/6.0)
	check("keyword nDCG@10", kw.NDCGAt10, (1+1+1/(1+g)+0+1+g)/6)
	// topK 1 keeps bees.md alone for both yeast queries: {bees, bread}
	// scores 1/2, 1, 1/(1+g); {bread} scores 0, 0, 0.
	top1 := out.Results[1]
	check("top1 recall@2", top1.RecallAtK, (1+1+0.5+0+0.5+0)/6.0)
	check("top1 MRR", top1.MRR, (1+1+1+0+1+0)/6.0)
	check("top1 nDCG@10", top1.NDCGAt10, (1+1+1/(1+g)+0+1/(1+g)+0)/6)
	if top1.Name != "top1" || kw.Name != "keyword" {
		t.Fatalf("names: %q %q", kw.Name, top1.Name)
	}

	// Bad requests name the field.
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{}, "golden"},
		{map[string]any{"golden": []map[string]any{{"query": "q"}}}, "golden[0].relevant"},
		{map[string]any{"golden": golden, "k": 0}, "k"},
		{map[string]any{"golden": golden, "settings": []map[string]any{{"topK": 0}}}, "settings[0].topK"},
		{map[string]any{"golden": golden, "settings": []map[string]any{{}, {"rerank": map[string]any{"model": "x"}}}}, "settings[1].rerank.model"},
	} {
		r := ts.Do("POST", "/v1/memory/golden/eval", key, tc.body)
		if _, msg := errorOf(t, r); r.Status != 400 || !strings.HasPrefix(msg, tc.field+":") {
			t.Errorf("%v: %d %s", tc.body, r.Status, r.Body)
		}
	}
	if r := ts.Do("POST", "/v1/memory/nope/eval", key, map[string]any{"golden": golden}); r.Status != 404 {
		t.Fatalf("missing memory: %d %s", r.Status, r.Body)
	}
}
