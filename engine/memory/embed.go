package memory

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
)

// Limits of POST /v1/embed (https://langbase.com/docs/api-reference/embed).
const (
	MaxEmbedChunks     = 100
	MaxEmbedChunkChars = 8192
)

// Embed implements the embed primitive: one vector per chunk, in order,
// from model (default openai:text-embedding-3-large). requestKey, when set,
// is the caller's own provider key.
func (s *Service) Embed(ctx context.Context, owner string, chunks []string, model, requestKey string) ([][]float32, error) {
	return s.EmbedDimensions(ctx, owner, chunks, model, requestKey, 0)
}

// EmbedDimensions is Embed asking the model for vectors of dims values
// (0: the model's own size); the provider adapter refuses a model that
// cannot shorten its vectors.
func (s *Service) EmbedDimensions(ctx context.Context, owner string, chunks []string, model, requestKey string, dims int) ([][]float32, error) {
	switch {
	case len(chunks) == 0:
		return nil, engine.FieldError("chunks", "must hold at least one string")
	case len(chunks) > MaxEmbedChunks:
		return nil, engine.FieldError("chunks", "may hold at most %d strings, got %d", MaxEmbedChunks, len(chunks))
	}
	for i, c := range chunks {
		if strings.TrimSpace(c) == "" {
			return nil, engine.FieldError("chunks["+strconv.Itoa(i)+"]", "must not be empty")
		}
		if n := utf8.RuneCountInString(c); n > MaxEmbedChunkChars {
			return nil, engine.FieldError("chunks["+strconv.Itoa(i)+"]", "must be at most %d characters, got %d", MaxEmbedChunkChars, n)
		}
	}
	if strings.TrimSpace(model) == "" {
		model = DefaultEmbeddingModel
	}
	ref, err := s.checkEmbeddingModel("embeddingModel", model)
	if err != nil {
		return nil, err
	}
	if ref.String() == KeywordOnlyModel {
		return nil, engine.FieldError("embeddingModel", "%s is keyword-only and makes no vectors", KeywordOnlyModel)
	}
	emb, key, err := s.embedder(ctx, ref, owner, requestKey)
	if err != nil {
		return nil, err
	}
	return s.embedAll(ctx, emb, ref, key, engine.EmbedDocument, dims, chunks, false)
}
