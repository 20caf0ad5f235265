package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/hearth-dev/hearth/engine"
)

// Rerankers. Cohere's v2 /rerank (https://docs.cohere.com/reference/rerank)
// and the Jina-style /rerank of local servers (vLLM, llama.cpp server,
// Jina, Infinity) share one shape: {model, query, documents, top_n} answered
// by {results: [{index, relevance_score}]}. Hugging Face TEI's /rerank
// (https://huggingface.github.io/text-embeddings-inference/) reads the
// documents from "texts" and answers a bare array of {index, score}; the
// OpenAI-style adapter sends both fields and reads both answers, so one
// HEARTH_<PROVIDER>_BASE_URL pointing at any of these servers works.

var (
	_ engine.Reranker        = (*Cohere)(nil)
	_ engine.Reranker        = (*OpenAI)(nil)
	_ engine.Reranker        = OverlapRerank{}
	_ engine.RerankProviders = (*Registry)(nil)
)

// OverlapRerankModel ("hearth:overlap-rerank") is the offline reranker test double.
const OverlapRerankModel = "overlap-rerank"

type rerankBody struct {
	Model     string   `json:"model,omitempty"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	Texts     []string `json:"texts,omitempty"`
	TopN      int      `json:"top_n,omitempty"`
}

type rerankResult struct {
	Index          int      `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// Rerank calls Cohere's v2 /rerank (rerank-v3.5, rerank-multilingual-v3.0, ...).
func (c *Cohere) Rerank(ctx context.Context, req *engine.RerankRequest) ([]engine.RerankScore, error) {
	body, err := json.Marshal(rerankBody{Model: req.Model, Query: req.Query, Documents: req.Documents, TopN: req.TopN})
	if err != nil {
		return nil, err
	}
	call, err := c.c.post(ctx, c.baseURL+"/rerank", body, false, c.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	return decodeRerank("cohere", call)
}

// Rerank calls <base URL>/rerank of an OpenAI-style provider: a local TEI,
// vLLM, llama.cpp or Jina-compatible server.
func (o *OpenAI) Rerank(ctx context.Context, req *engine.RerankRequest) ([]engine.RerankScore, error) {
	body, err := json.Marshal(rerankBody{Model: req.Model, Query: req.Query, Documents: req.Documents, Texts: req.Documents, TopN: req.TopN})
	if err != nil {
		return nil, err
	}
	call, err := o.c.post(ctx, o.baseURL+"/rerank", body, false, o.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	return decodeRerank(o.host.name, call)
}

// decodeRerank reads {results: [...]} or a bare array (TEI).
func decodeRerank(provider string, call *upstreamCall) ([]engine.RerankScore, error) {
	var raw json.RawMessage
	if err := decodeResponse(provider, call, &raw); err != nil {
		return nil, err
	}
	var results []rerankResult
	var err error
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		err = json.Unmarshal(t, &results)
	} else {
		var obj struct {
			Results []rerankResult `json:"results"`
		}
		err = json.Unmarshal(t, &obj)
		results = obj.Results
	}
	if err != nil {
		return nil, engine.Wrap(err, engine.CodeUpstream, "%s sent a rerank response Hearth could not read", provider)
	}
	out := make([]engine.RerankScore, len(results))
	for i, r := range results {
		switch {
		case r.RelevanceScore != nil:
			out[i] = engine.RerankScore{Index: r.Index, Score: *r.RelevanceScore}
		case r.Score != nil:
			out[i] = engine.RerankScore{Index: r.Index, Score: *r.Score}
		default:
			return nil, engine.Errorf(engine.CodeUpstream, "%s sent a rerank result without a score", provider)
		}
	}
	return out, nil
}

// OverlapRerank is the hearth:overlap-rerank test double: a document scores
// the fraction of the query's distinct words (lower-cased, letters and
// digits) it contains. Deterministic and offline; not a language model.
type OverlapRerank struct{}

// Rerank scores every document, in request order.
func (OverlapRerank) Rerank(_ context.Context, req *engine.RerankRequest) ([]engine.RerankScore, error) {
	q := rerankWords(req.Query)
	out := make([]engine.RerankScore, len(req.Documents))
	for i, d := range req.Documents {
		words := rerankWords(d)
		hit := 0
		for w := range q {
			if words[w] {
				hit++
			}
		}
		score := 0.0
		if len(q) > 0 {
			score = float64(hit) / float64(len(q))
		}
		out[i] = engine.RerankScore{Index: i, Score: score}
	}
	return out, nil
}

func rerankWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		m[w] = true
	}
	return m
}

// Reranker returns the reranking adapter of ref's provider: cohere, any
// OpenAI-style provider with a base URL (its server must serve /rerank),
// and hearth:overlap-rerank.
func (r *Registry) Reranker(ref engine.ModelRef) (engine.Reranker, error) {
	if ref.Provider == HearthProvider {
		if ref.Model != OverlapRerankModel {
			return nil, engine.FieldError("rerank.model", "hearth has no reranker %q (the offline test double is hearth:%s)", ref.Model, OverlapRerankModel)
		}
		return OverlapRerank{}, nil
	}
	switch m := r.chat[ref.Provider].(type) {
	case *Cohere:
		return pooledReranker{inner: m, pool: r.pool, provider: ref.Provider}, nil
	case *OpenAI:
		if _, builtin := hosts[ref.Provider]; !builtin || rerankHosts[ref.Provider] {
			return pooledReranker{inner: m, pool: r.pool, provider: ref.Provider}, nil
		}
	}
	if _, ok := r.chat[ref.Provider]; ok {
		return nil, engine.FieldError("rerank.model", "provider %q offers no reranking", ref.Provider)
	}
	return nil, r.unknown(ref)
}

// rerankHosts are the built-in OpenAI-style hosts that serve /rerank;
// providers added by a base URL alone (HEARTH_TEI_BASE_URL, ...) are
// assumed to serve it too.
var rerankHosts = map[string]bool{"openai-compatible": true, "together": true}

type pooledReranker struct {
	inner    engine.Reranker
	pool     *keyPool
	provider string
}

func (p pooledReranker) Rerank(ctx context.Context, req *engine.RerankRequest) ([]engine.RerankScore, error) {
	return poolCall(ctx, p.pool, p.provider, req.APIKey, func(ctx context.Context, key string) ([]engine.RerankScore, error) {
		r := *req
		r.APIKey = key
		return p.inner.Rerank(ctx, &r)
	})
}
