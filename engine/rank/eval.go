package rank

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// Limits of a retrieval evaluation (docs/memories-and-retrieval.md#evaluating-retrieval).
const (
	MaxEvalQueries  = 500
	MaxEvalSettings = 8
	DefaultEvalK    = 5
	// NDCGDepth is the cut of nDCG, reported as ndcg_at_10.
	NDCGDepth = 10
)

// GoldenCase is one line of a golden set: a query and the names of the
// documents that answer it.
type GoldenCase struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

// Setting is one retrieval configuration an evaluation compares: a label
// and overrides of the retrieve request (nil keeps the default).
type Setting struct {
	Name          string             `json:"name"`
	TopK          *int               `json:"topK,omitempty"`
	KeywordWeight *float64           `json:"keyword_weight,omitempty"`
	Rerank        *engine.RerankSpec `json:"rerank,omitempty"`
	MinScore      *float64           `json:"min_score,omitempty"`
}

// QueryScore is the evaluation of one golden query: the documents
// retrieved (distinct, best first, at most NDCGDepth) and its measures.
type QueryScore struct {
	Query          string   `json:"query"`
	Ranking        []string `json:"ranking"`
	RecallAtK      float64  `json:"recall_at_k"`
	ReciprocalRank float64  `json:"reciprocal_rank"`
	NDCGAt10       float64  `json:"ndcg_at_10"`
}

// Scores are the means of an evaluation over its golden set.
type Scores struct {
	RecallAtK float64 `json:"recall_at_k"`
	MRR       float64 `json:"mrr"`
	NDCGAt10  float64 `json:"ndcg_at_10"`
}

// DocRanking turns a ranked list of chunk document names into the ranking
// of documents: each document once, at the place of its best chunk.
func DocRanking(chunkDocs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range chunkDocs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// Score measures one ranking of documents against the relevant ones, with
// binary relevance: recall@k is the share of relevant documents among the
// first k; the reciprocal rank is 1/rank of the first relevant document
// (0 when none is retrieved); nDCG@10 is DCG@10 (each relevant document at
// rank i adds 1/log2(i+1)) over the DCG of the ideal ranking.
func Score(query string, ranking, relevant []string, k int) QueryScore {
	rel := map[string]bool{}
	for _, r := range relevant {
		rel[r] = true
	}
	q := QueryScore{Query: query, Ranking: ranking[:min(len(ranking), NDCGDepth)]}
	if len(rel) == 0 {
		return q
	}
	hits := 0
	dcg := 0.0
	for i, d := range ranking {
		if !rel[d] {
			continue
		}
		if i < k {
			hits++
		}
		if q.ReciprocalRank == 0 {
			q.ReciprocalRank = 1 / float64(i+1)
		}
		if i < NDCGDepth {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	ideal := 0.0
	for i := range min(len(rel), NDCGDepth) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	q.RecallAtK = float64(hits) / float64(len(rel))
	q.NDCGAt10 = dcg / ideal
	return q
}

// Mean averages the measures of every query (zero for none).
func Mean(qs []QueryScore) Scores {
	var s Scores
	if len(qs) == 0 {
		return s
	}
	for _, q := range qs {
		s.RecallAtK += q.RecallAtK
		s.MRR += q.ReciprocalRank
		s.NDCGAt10 += q.NDCGAt10
	}
	n := float64(len(qs))
	return Scores{RecallAtK: s.RecallAtK / n, MRR: s.MRR / n, NDCGAt10: s.NDCGAt10 / n}
}

// ValidateGolden checks a golden set: 1 to MaxEvalQueries cases, each with
// a query and at least one relevant document. field names the set in errors.
func ValidateGolden(field string, cases []GoldenCase) error {
	if len(cases) == 0 || len(cases) > MaxEvalQueries {
		return engine.FieldError(field, "must hold 1 to %d queries, got %d", MaxEvalQueries, len(cases))
	}
	for i, c := range cases {
		f := fmt.Sprintf("%s[%d]", field, i)
		if strings.TrimSpace(c.Query) == "" {
			return engine.FieldError(f+".query", "is required")
		}
		if len(c.Relevant) == 0 {
			return engine.FieldError(f+".relevant", "must name at least one document")
		}
	}
	return nil
}

// ReadGolden reads a golden set in JSON Lines: one {query, relevant} object
// a line; blank lines and lines starting with # are skipped.
func ReadGolden(r io.Reader) ([]GoldenCase, error) {
	var out []GoldenCase
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var c GoldenCase
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, ValidateGolden("golden", out)
}
