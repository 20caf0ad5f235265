package rank

import (
	"context"
	"math"
	"sort"

	"github.com/hearth-dev/hearth/engine"
)

// MaxRerankCandidates bounds how many chunks one memory sends to its
// reranker: a cross-encoder scores every candidate, so its cost grows with
// this number, not with the memory.
const MaxRerankCandidates = 100

// RerankCandidates is how many chunks retrieval fetches before a reranker
// cuts them to n: three times n, at least 20, at most MaxRerankCandidates.
// A reranker can only promote what the first stage found, so it needs a
// deeper list than it returns.
func RerankCandidates(n int) int {
	return min(max(3*n, 20), MaxRerankCandidates)
}

// Reranked is a candidate's place after reranking: its index in the
// request's Documents and its relevance score in [0, 1].
type Reranked struct {
	Index int
	Score float64
}

// Rerank asks r to score req.Documents against req.Query and returns the
// best n (all when n <= 0), best first; ties keep the first-stage order.
// Documents the reranker leaves out (it was asked for its top n) are
// dropped. Scores already in [0, 1] (Cohere, Jina, TEI, vLLM) are kept;
// when any score falls outside, the reranker answered raw logits
// (llama.cpp, TEI with raw_scores) and every score goes through the
// logistic function, which keeps the order. An answer naming an index out
// of range or twice is an UPSTREAM_ERROR.
func Rerank(ctx context.Context, r engine.Reranker, req *engine.RerankRequest, n int) ([]Reranked, error) {
	if len(req.Documents) == 0 {
		return nil, nil
	}
	scores, err := r.Rerank(ctx, req)
	if err != nil {
		return nil, err
	}
	seen := make([]bool, len(req.Documents))
	logits := false
	out := make([]Reranked, 0, len(scores))
	for _, s := range scores {
		if s.Index < 0 || s.Index >= len(req.Documents) || seen[s.Index] {
			return nil, engine.Errorf(engine.CodeUpstream, "reranker %s answered index %d for %d documents", req.Model, s.Index, len(req.Documents))
		}
		if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) {
			return nil, engine.Errorf(engine.CodeUpstream, "reranker %s answered a score that is not a number", req.Model)
		}
		seen[s.Index] = true
		logits = logits || s.Score < 0 || s.Score > 1
		out = append(out, Reranked{Index: s.Index, Score: s.Score})
	}
	if logits {
		for i := range out {
			out[i].Score = 1 / (1 + math.Exp(-out[i].Score))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Index < out[j].Index
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}
