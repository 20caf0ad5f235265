package memory

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// KeywordOnlyModel is the embedding model of keyword-only memories: no
// provider, no vectors, BM25 keyword search only. It is the offline choice
// for installs without any embedder.
const KeywordOnlyModel = "hearth:bm25"

// knownEmbeddingModels lists the embedding models of the hosted providers
// whose catalogue is fixed: the models of
// https://langbase.com/docs/api-reference/memory/create plus their siblings.
// Other providers (ollama, openai-compatible hosts, extra configured
// providers) accept any model name their server knows.
var knownEmbeddingModels = map[string][]string{
	"openai": {"text-embedding-3-large", "text-embedding-3-small", "text-embedding-ada-002"},
	"cohere": {"embed-v4.0", "embed-multilingual-v3.0", "embed-multilingual-light-v3.0", "embed-english-v3.0", "embed-english-light-v3.0"},
	"google": {"text-embedding-004", "gemini-embedding-001"},
}

// checkEmbeddingModel validates an embedding model id against the provider
// registry and returns it parsed. field names the request field.
func (s *Service) checkEmbeddingModel(field, id string) (engine.ModelRef, error) {
	ref, err := engine.ParseModelID(field, strings.TrimSpace(id))
	if err != nil {
		return ref, err
	}
	if ref.String() == KeywordOnlyModel {
		return ref, nil
	}
	if known, ok := knownEmbeddingModels[ref.Provider]; ok && !slices.Contains(known, ref.Model) {
		return ref, engine.FieldError(field, "%q is not an embedding model of %s; use one of %s:%s, or %s for keyword-only search",
			id, ref.Provider, ref.Provider, strings.Join(known, ", "+ref.Provider+":"), KeywordOnlyModel)
	}
	if _, err := s.cfg.Providers.Embedder(ref); err != nil {
		return ref, engine.FieldError(field, "%q cannot be used: %s", id, errMessage(err))
	}
	return ref, nil
}

// errMessage is the caller-safe message of an error.
func errMessage(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// embedder resolves the embedder and the provider key of a model for owner.
// Key problems are BAD_REQUEST errors that say how to fix them.
func (s *Service) embedder(ctx context.Context, ref engine.ModelRef, owner, requestKey string) (engine.Embedder, string, error) {
	emb, err := s.cfg.Providers.Embedder(ref)
	if err != nil {
		return nil, "", err
	}
	key, err := s.cfg.Keysets.Resolve(ctx, ref.Provider, requestKey, "", owner)
	if err != nil {
		return nil, "", err
	}
	return emb, key, nil
}

// embedAll embeds texts in batches that respect the embedder's MaxBatch and
// the character budget, retrying retryable provider errors per batch.
// retry is false for interactive calls, which rely on the provider
// adapter's own short retries instead of waiting here.
func (s *Service) embedAll(ctx context.Context, emb engine.Embedder, ref engine.ModelRef, key string, purpose engine.EmbedPurpose, dims int, texts []string, retry bool) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for _, b := range s.batches(emb, texts) {
		vecs, err := s.embedBatch(ctx, emb, &engine.EmbedRequest{Model: ref.Model, Inputs: texts[b[0]:b[1]], Purpose: purpose, APIKey: key, Dimensions: dims}, retry)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// batches splits texts into [start, end) ranges of at most MaxBatch inputs
// and about BatchChars characters (a longer single text is its own batch).
func (s *Service) batches(emb engine.Embedder, texts []string) [][2]int {
	max := emb.MaxBatch()
	if max <= 0 {
		max = 96
	}
	var out [][2]int
	start, chars := 0, 0
	for i, t := range texts {
		n := len(t)
		if i > start && (i-start >= max || chars+n > s.cfg.BatchChars) {
			out = append(out, [2]int{start, i})
			start, chars = i, 0
		}
		chars += n
	}
	if start < len(texts) {
		out = append(out, [2]int{start, len(texts)})
	}
	return out
}

// embedBatch runs one embedding request. With retry, retryable failures
// (rate limits, upstream errors and timeouts, unavailability, network
// errors) are tried again after a growing wait, or the provider's
// Retry-After when it gives one; other failures return at once.
func (s *Service) embedBatch(ctx context.Context, emb engine.Embedder, req *engine.EmbedRequest, retry bool) ([][]float32, error) {
	delay := s.cfg.RetryBaseDelay
	for attempt := 1; ; attempt++ {
		vecs, err := emb.Embed(ctx, req)
		if err == nil {
			return checkVectors(vecs, len(req.Inputs))
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !retry || !retryable(err) || attempt >= s.cfg.EmbedAttempts {
			return nil, err
		}
		wait := delay
		var e *engine.Error
		if errors.As(err, &e) && e.RetryAfter > 0 {
			wait = time.Duration(e.RetryAfter) * time.Second
		}
		wait = min(wait, s.cfg.RetryMaxDelay)
		s.log.Warn("embedding failed, retrying", "attempt", attempt, "wait", wait, "err", err)
		if err := s.cfg.Sleep(ctx, wait); err != nil {
			return nil, err
		}
		delay = min(delay*2, s.cfg.RetryMaxDelay)
	}
}

// retryable reports whether an embedding failure may pass by itself.
func retryable(err error) bool {
	var e *engine.Error
	if !errors.As(err, &e) {
		return true // transport errors
	}
	switch e.Code {
	case engine.CodeRateLimited, engine.CodeUpstream, engine.CodeUpstreamTimeout, engine.CodeUnavailable, engine.CodeInternal:
		return true
	}
	return false
}

// checkVectors checks a provider's answer: one finite, non-empty vector per
// input, all of one dimension.
func checkVectors(vecs [][]float32, n int) ([][]float32, error) {
	if len(vecs) != n {
		return nil, engine.Errorf(engine.CodeUpstream, "the embedding provider returned %d vectors for %d inputs", len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) {
			return nil, engine.Errorf(engine.CodeUpstream, "the embedding provider returned vectors of different sizes (%d and %d)", len(vecs[0]), len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, engine.Errorf(engine.CodeUpstream, "the embedding provider returned a vector with a non-finite value (input %d)", i)
			}
		}
	}
	return vecs, nil
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// EmbeddingModels lists, per provider, the embedding models of the hosted
// providers whose catalogue is fixed, plus the offline hearth:hash-embed
// (a copy: callers may change it). Local servers list their own.
func EmbeddingModels() map[string][]string {
	out := map[string][]string{"hearth": {"hash-embed"}}
	for p, ms := range knownEmbeddingModels {
		out[p] = slices.Clone(ms)
	}
	return out
}
