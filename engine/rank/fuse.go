// Package rank owns the ranking of retrieval results: it fuses the vector
// and keyword rankings of hybrid retrieval and scales the fused scores.
// A reranker belongs here too. It imports only engine.
package rank

import (
	"sort"

	"github.com/hearth-dev/hearth/engine"
)

// DefaultRRFK is the rank constant of reciprocal rank fusion from Cormack,
// Clarke & Büttcher (2009); it damps the advantage of the very first ranks.
const DefaultRRFK = 60

// FuseRRF merges a vector ranking and a keyword ranking (each best first)
// by weighted reciprocal rank fusion: a chunk scores
// wVec/(k+rankVec) + wKw/(k+rankKw), ranks counted from 1, a missing list
// contributing nothing. Only ranks matter, so cosine and BM25 scores need
// no calibration against each other. k <= 0 means DefaultRRFK. The result
// holds every chunk of either list, best first; ties go to the better
// single rank, then to the id. Score is the fused score.
func FuseRRF(vec, kw []engine.ChunkHit, wVec, wKw float64, k int) []engine.ChunkHit {
	if k <= 0 {
		k = DefaultRRFK
	}
	type acc struct {
		score float64
		best  int
	}
	m := make(map[string]*acc, len(vec)+len(kw))
	add := func(hits []engine.ChunkHit, w float64) {
		seen := make(map[string]bool, len(hits))
		for i, h := range hits {
			if seen[h.ID] {
				continue // a duplicate id in one list counts once, at its best rank
			}
			seen[h.ID] = true
			a, ok := m[h.ID]
			if !ok {
				a = &acc{best: i}
				m[h.ID] = a
			}
			a.score += w / float64(k+i+1)
			a.best = min(a.best, i)
		}
	}
	add(vec, wVec)
	add(kw, wKw)
	out := make([]engine.ChunkHit, 0, len(m))
	for id, a := range m {
		out = append(out, engine.ChunkHit{ID: id, Score: a.score})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if bi, bj := m[out[i].ID].best, m[out[j].ID].best; bi != bj {
			return bi < bj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ScaleRRF maps fused scores into [0, 1] in place: 1 is first place in
// every ranking that has weight (totalWeight is the sum of the weights).
func ScaleRRF(hits []engine.ChunkHit, totalWeight float64, k int) []engine.ChunkHit {
	if k <= 0 {
		k = DefaultRRFK
	}
	best := totalWeight / float64(k+1)
	for i := range hits {
		hits[i].Score = min(1, hits[i].Score/best)
	}
	return hits
}
