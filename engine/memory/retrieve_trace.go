package memory

import (
	"context"

	"github.com/hearth-dev/hearth/engine/telemetry"
)

// Search embeds the query once per embedding model, searches every named
// memory of owner (vector and keyword, fused), filters chunks by their
// document's meta before ranking, merges and returns the best chunks first
// (see search).
//
// Inside a traced operation it is a "retrieval <memory>" span
// (gen_ai.operation.name "retrieval", gen_ai.data_source.id the first
// memory) with the memories searched, the mode ("hybrid", or
// "keyword-fallback" when a query embedding failed), the hits returned and
// whether a reranker ran (docs/operations.md#opentelemetry).
func (s *Service) Search(ctx context.Context, owner string, req RetrieveRequest) (*Retrieval, error) {
	if telemetry.FromContext(ctx) == nil {
		return s.search(ctx, owner, req)
	}
	names := make([]string, len(req.Memories))
	for i, m := range req.Memories {
		names[i] = m.Name
	}
	first := ""
	if len(names) > 0 {
		first = names[0]
	}
	ctx, sp := telemetry.Start(ctx, "retrieval "+first, telemetry.KindInternal,
		telemetry.String("gen_ai.operation.name", "retrieval"), telemetry.String("gen_ai.data_source.id", first),
		telemetry.Strings("hearth.retrieval.memories", names), telemetry.Bool("hearth.retrieval.reranked", false))
	defer sp.End()
	r, err := s.search(ctx, owner, req)
	if err != nil {
		sp.Fail(err)
		return r, err
	}
	mode := "hybrid"
	if len(r.KeywordFallback) > 0 {
		mode = "keyword-fallback"
	}
	sp.SetAttrs(telemetry.String("hearth.retrieval.mode", mode), telemetry.Int("hearth.retrieval.hits", len(r.Results)))
	if len(r.RerankFallback) > 0 {
		sp.SetAttrs(telemetry.Strings("hearth.retrieval.rerank_fallback", r.RerankFallback))
	}
	return r, nil
}
