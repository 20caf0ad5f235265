package rank

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

type scripted []engine.RerankScore

func (s scripted) Rerank(context.Context, *engine.RerankRequest) ([]engine.RerankScore, error) {
	return s, nil
}

func TestRerank(t *testing.T) {
	req := &engine.RerankRequest{Model: "m", Query: "q", Documents: []string{"a", "b", "c", "d"}}
	got, err := Rerank(context.Background(), scripted{{Index: 0, Score: 0.2}, {Index: 1, Score: 0.9}, {Index: 2, Score: 0.2}, {Index: 3, Score: 0.5}}, req, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []Reranked{{1, 0.9}, {3, 0.5}, {0, 0.2}} // the tie keeps the first-stage order
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Raw logits go through the logistic function, order kept.
	got, err = Rerank(context.Background(), scripted{{Index: 0, Score: -2}, {Index: 1, Score: 3}, {Index: 2, Score: 0}}, req, 0)
	if err != nil || len(got) != 3 || got[0].Index != 1 || got[2].Index != 0 {
		t.Fatalf("logits: %v %v", got, err)
	}
	if math.Abs(got[0].Score-1/(1+math.Exp(-3))) > 1e-12 || got[1].Score != 0.5 {
		t.Fatalf("logistic: %v", got)
	}
	for _, bad := range []scripted{{{Index: 4, Score: 0.1}}, {{Index: -1, Score: 0.1}}, {{Index: 1, Score: 0.1}, {Index: 1, Score: 0.2}}, {{Index: 0, Score: math.NaN()}}} {
		if _, err := Rerank(context.Background(), bad, req, 0); engine.ErrorCode(err) != engine.CodeUpstream || !strings.Contains(err.Error(), "reranker m") {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if got, err := Rerank(context.Background(), scripted{{Index: 0, Score: 1}}, &engine.RerankRequest{}, 1); got != nil || err != nil {
		t.Fatalf("no documents: %v %v", got, err)
	}
}

func TestRerankCandidates(t *testing.T) {
	for n, want := range map[int]int{1: 20, 10: 30, 40: 100, 100: 100} {
		if got := RerankCandidates(n); got != want {
			t.Errorf("RerankCandidates(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestScore checks the measures on a ranking worked out by hand.
func TestScore(t *testing.T) {
	// Relevant {a, b, c}; retrieved a, x, b; k = 2.
	q := Score("q", []string{"a", "x", "b"}, []string{"a", "b", "c"}, 2)
	// recall@2: only a in the first two of three relevant = 1/3.
	// RR: a at rank 1 = 1.
	// DCG@10 = 1/log2(2) + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3) + 1/log2(4).
	ideal := 1 + 1/math.Log2(3) + 0.5
	if math.Abs(q.RecallAtK-1.0/3) > 1e-12 || q.ReciprocalRank != 1 || math.Abs(q.NDCGAt10-1.5/ideal) > 1e-12 {
		t.Fatalf("score: %+v", q)
	}
	q = Score("q", []string{"x", "y", "b"}, []string{"b"}, 2)
	if q.RecallAtK != 0 || math.Abs(q.ReciprocalRank-1.0/3) > 1e-12 || math.Abs(q.NDCGAt10-0.5) > 1e-12 {
		t.Fatalf("relevant at rank 3: %+v", q)
	}
	m := Mean([]QueryScore{{RecallAtK: 1, ReciprocalRank: 1, NDCGAt10: 1}, {}})
	if m != (Scores{RecallAtK: 0.5, MRR: 0.5, NDCGAt10: 0.5}) {
		t.Fatalf("mean: %+v", m)
	}
	if got := DocRanking([]string{"a", "b", "a", "c", "b"}); strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("doc ranking: %v", got)
	}
	if _, err := ReadGolden(strings.NewReader("# c\n\n{\"query\":\"q\",\"relevant\":[\"a\"]}\n{\"query\":\"q\",\"bogus\":1}\n")); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("unknown field: %v", err)
	}
}
