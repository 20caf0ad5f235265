package engine

import (
	"context"
	"strings"
	"time"
)

// Limits of reranking (docs/memories-and-retrieval.md#reranking).
const (
	// MaxRerankTopN bounds RerankSpec.TopN.
	MaxRerankTopN = 100
	// RerankOff as RerankSpec.Model turns a memory's reranker off for one
	// request (retrieve, run or eval settings).
	RerankOff = "none"
)

// RerankSpec names a reranker ("cohere:rerank-v3.5") and how many chunks
// it keeps; TopN 0 keeps the retrieval's top_k.
type RerankSpec struct {
	Model string `json:"model"`
	TopN  int    `json:"top_n,omitempty"`
}

// Off reports whether the spec turns reranking off.
func (r *RerankSpec) Off() bool { return r == nil || r.Model == RerankOff }

// Validate checks the spec of a request field ("rerank", "memory[0].rerank").
// The model must be provider:model, or RerankOff.
func (r *RerankSpec) Validate(field string) error {
	if r == nil {
		return nil
	}
	r.Model = strings.TrimSpace(r.Model)
	if r.Model == "" {
		return FieldError(field+".model", "is required: provider:model, or %q to turn reranking off", RerankOff)
	}
	if r.Model != RerankOff {
		if _, err := ParseModelID(field+".model", r.Model); err != nil {
			return err
		}
	}
	if r.TopN < 0 || r.TopN > MaxRerankTopN {
		return FieldError(field+".top_n", "must be between 1 and %d, got %d", MaxRerankTopN, r.TopN)
	}
	return nil
}

// ValidateMinScore checks a score threshold: relevance scores are in [0, 1].
func ValidateMinScore(field string, v *float64) error {
	if v == nil {
		return nil
	}
	return checkRange(field, *v, 0, 1)
}

// RerankRequest asks a reranker to score documents against a query.
// TopN, when > 0, lets the provider return only the best TopN.
type RerankRequest struct {
	Model     string
	Query     string
	Documents []string
	TopN      int
	APIKey    string
}

// RerankScore is the relevance of the document at Index of the request.
type RerankScore struct {
	Index int
	Score float64
}

// Reranker scores documents against a query (a cross-encoder behind
// Cohere's /rerank or a local server's /rerank).
type Reranker interface {
	Rerank(ctx context.Context, req *RerankRequest) ([]RerankScore, error)
}

// RerankProviders is implemented by Providers that offer rerankers.
type RerankProviders interface {
	Reranker(ref ModelRef) (Reranker, error)
}

// Reranker makes instrumented Providers offer the rerankers of the
// providers it wraps, with their calls counted like every upstream call
// (operation "rerank").
func (ip *instrumented) Reranker(ref ModelRef) (Reranker, error) {
	rp, ok := ip.Providers.(RerankProviders)
	if !ok {
		return nil, Errorf(CodeBadRequest, "no provider of this server offers reranking")
	}
	r, err := rp.Reranker(ref)
	if err != nil {
		return nil, err
	}
	return &instrumentedReranker{next: r, provider: ref.Provider, m: ip.m}, nil
}

type instrumentedReranker struct {
	next     Reranker
	provider string
	m        Metrics
}

func (r *instrumentedReranker) Rerank(ctx context.Context, req *RerankRequest) ([]RerankScore, error) {
	start := time.Now()
	out, err := r.next.Rerank(ctx, req)
	r.m.UpstreamCall(r.provider, "rerank", time.Since(start), err)
	return out, err
}
