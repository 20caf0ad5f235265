package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// seedEvalMemory uploads the golden set's documents into the keyword-only
// memory "golden" through the public upload flow.
func seedEvalMemory(t *testing.T, ts *servertest.Server) {
	docs := map[string][]byte{}
	for name, path := range map[string]string{"owls.md": "../../../testdata/eval/owls.md", "bees.md": "../../../testdata/eval/bees.md", "tides.md": "../../../testdata/eval/tides.md",
		"bread.md": "../../../testdata/eval/bread.md", "notes.md": "../../../testdata/docs/notes.md", "people.csv": "../../../testdata/docs/people.csv"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = data
	}
	seedMemory(t, ts, map[string]any{"name": "golden", "embedding_model": "hearth:bm25", "chunk_size": 2000, "chunk_overlap": 0}, docs)
}

// TestEvalCommand: hearth eval measures through the retrieve endpoint of a
// running server and prints the settings side by side; the numbers are
// those worked out by hand in server/eval_test.go.
func TestEvalCommand(t *testing.T) {
	ts := servertest.Start(t)
	seedEvalMemory(t, ts)
	args := []string{"eval", "--url", ts.URL, "--key", servertest.AdminKey, "--memory", "golden",
		"--golden", "../../../testdata/eval/golden.jsonl", "--k", "2", "--setting", "keyword:", "--setting", "top1:topK=1"}
	var out, errOut bytes.Buffer
	if code := Run(append(args, "--json"), envMap(nil), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var res struct {
		Queries int `json:"queries"`
		Results []struct {
			Name      string  `json:"name"`
			RecallAtK float64 `json:"recall_at_k"`
			MRR       float64 `json:"mrr"`
			NDCGAt10  float64 `json:"ndcg_at_10"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	g := 1 / math.Log2(3)
	want := [][3]float64{
		{4.5 / 6, 4.5 / 6, (3 + 1/(1+g) + g) / 6},
		{3.0 / 6, 4.0 / 6, (2 + 2/(1+g)) / 6},
	}
	if res.Queries != 6 || len(res.Results) != 2 || res.Results[0].Name != "keyword" || res.Results[1].Name != "top1" {
		t.Fatalf("eval: %s", out.String())
	}
	for i, w := range want {
		r := res.Results[i]
		if math.Abs(r.RecallAtK-w[0]) > 1e-9 || math.Abs(r.MRR-w[1]) > 1e-9 || math.Abs(r.NDCGAt10-w[2]) > 1e-9 {
			t.Errorf("%s: %+v, want %v", r.Name, r, w)
		}
	}
	out.Reset()
	if code := Run(args, envMap(nil), &out, &errOut); code != 0 || !strings.Contains(out.String(), "RECALL@2") ||
		!strings.Contains(out.String(), "keyword  0.750     0.750") {
		t.Fatalf("table (exit %d):\n%s", code, out.String())
	}
	out.Reset()
	errOut.Reset()
	if code := Run([]string{"eval", "--url", ts.URL, "--key", servertest.AdminKey, "--memory", "golden", "--golden", "../../../testdata/eval/golden.jsonl",
		"--setting", "x:rerank=nope"}, envMap(nil), &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "rerank.model") {
		t.Fatalf("bad setting: exit %d, %s", code, errOut.String())
	}
	if _, err := parseSetting("a:topK=3,rerank=cohere:rerank-v3.5,top_n=2,min_score=0.2,keyword_weight=0.5", 1); err != nil {
		t.Fatal(err)
	}
	if st, _ := parseSetting("rerank=cohere:rerank-v3.5", 4); st.Name != "setting 4" || st.Rerank.Model != "cohere:rerank-v3.5" {
		t.Fatalf("unlabelled setting: %+v", st)
	}
	if _, err := parseSetting("a:bogus=1", 1); err == nil {
		t.Fatal("unknown key accepted")
	}
}
