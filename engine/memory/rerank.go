package memory

import (
	"context"
	"fmt"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/rank"
)

// checkRerank validates a rerank setting of a request field and checks that
// its provider offers rerankers, so a typo fails the request, not every
// later retrieval.
func (s *Service) checkRerank(field string, spec *engine.RerankSpec) error {
	if err := spec.Validate(field); err != nil {
		return err
	}
	if spec.Off() {
		return nil
	}
	ref, err := engine.ParseModelID(field+".model", spec.Model)
	if err != nil {
		return err
	}
	_, err = s.reranker(ref, field+".model")
	return err
}

// reranker returns the reranking adapter of ref's provider.
func (s *Service) reranker(ref engine.ModelRef, field string) (engine.Reranker, error) {
	rp, ok := s.cfg.Providers.(engine.RerankProviders)
	if !ok {
		return nil, engine.FieldError(field, "no provider of this server offers reranking")
	}
	r, err := rp.Reranker(ref)
	if err != nil {
		return nil, engine.FieldError(field, "%q cannot be used: %s", ref.String(), errMessage(err))
	}
	return r, nil
}

// effectiveRerank is the reranker of one memory in a retrieval: the
// memory's own query setting, else the request's, else the memory's;
// nil when reranking is off.
func effectiveRerank(q *MemoryQuery, req *RetrieveRequest, m *Memory) *engine.RerankSpec {
	spec := m.Rerank
	if req.Rerank != nil {
		spec = req.Rerank
	}
	if q.Rerank != nil {
		spec = q.Rerank
	}
	if spec.Off() {
		return nil
	}
	return spec
}

// rerankMemory reorders one memory's candidates (texts filled) with spec's
// reranker and keeps the best n. On any failure of the reranker it returns
// the first-stage order cut to n and ok false: retrieval answers without
// reranking rather than failing (the caller reports the fallback). Nothing
// is kept between retrievals, so nodes sharing one database rerank alike.
func (s *Service) rerankMemory(ctx context.Context, owner, query string, spec *engine.RerankSpec, cands []Result, n int) ([]Result, bool) {
	fallback := func(err error) ([]Result, bool) {
		s.log.Warn("reranking failed; answering the first-stage order", "owner", owner, "model", spec.Model, "err", err)
		return cands[:min(n, len(cands))], false
	}
	ref, err := engine.ParseModelID("rerank.model", spec.Model)
	if err != nil {
		return fallback(err)
	}
	rr, err := s.reranker(ref, "rerank.model")
	if err != nil {
		return fallback(err)
	}
	key, err := s.cfg.Keysets.Resolve(ctx, ref.Provider, "", "", owner)
	if err != nil {
		return fallback(err)
	}
	docs := make([]string, len(cands))
	for i := range cands {
		docs[i] = cands[i].Text
	}
	order, err := rank.Rerank(ctx, rr, &engine.RerankRequest{Model: ref.Model, Query: query, Documents: docs, TopN: n, APIKey: key}, n)
	if err != nil {
		return fallback(err)
	}
	out := make([]Result, len(order))
	for i, o := range order {
		out[i] = cands[o.Index]
		out[i].Similarity = o.Score
	}
	return out, true
}

// checkSettings validates the rerank, min_score and keyword weight settings
// of a retrieval and returns the fusion it uses.
func (s *Service) checkSettings(req *RetrieveRequest) (Fusion, error) {
	fu := s.cfg.Fusion
	if err := s.checkRerank("rerank", req.Rerank); err != nil {
		return fu, err
	}
	if err := engine.ValidateMinScore("min_score", req.MinScore); err != nil {
		return fu, err
	}
	for i := range req.Memories {
		q := &req.Memories[i]
		if err := s.checkRerank(fmt.Sprintf("memory[%d].rerank", i), q.Rerank); err != nil {
			return fu, err
		}
		if err := engine.ValidateMinScore(fmt.Sprintf("memory[%d].min_score", i), q.MinScore); err != nil {
			return fu, err
		}
	}
	if w := req.KeywordWeight; w != nil {
		if *w < 0 || *w > 10 || (*w == 0 && fu.VectorWeight == 0) {
			return fu, engine.FieldError("keyword_weight", "must be between 0 and 10 and leave some weight to a ranking, got %g", *w)
		}
		fu.KeywordWeight = *w
	}
	return fu, nil
}
