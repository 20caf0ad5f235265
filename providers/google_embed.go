package providers

import (
	"context"
	"encoding/json"

	"github.com/hearth-dev/hearth/engine"
)

type gemEmbedRequest struct {
	Requests []gemEmbedItem `json:"requests"`
}

type gemEmbedItem struct {
	Model    string     `json:"model"`
	Content  gemContent `json:"content"`
	TaskType string     `json:"taskType,omitempty"`
	// OutputDimensionality shortens the vectors (EmbedRequest.Dimensions).
	OutputDimensionality int `json:"outputDimensionality,omitempty"`
}

// Embed calls batchEmbedContents with taskType RETRIEVAL_DOCUMENT or
// RETRIEVAL_QUERY (text-embedding-004, gemini-embedding-001 and newer).
func (g *Google) Embed(ctx context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	if len(req.Inputs) == 0 {
		return [][]float32{}, nil
	}
	task := "RETRIEVAL_DOCUMENT"
	if req.Purpose == engine.EmbedQuery {
		task = "RETRIEVAL_QUERY"
	}
	model := "models/" + req.Model
	r := gemEmbedRequest{Requests: make([]gemEmbedItem, len(req.Inputs))}
	for i, in := range req.Inputs {
		r.Requests[i] = gemEmbedItem{Model: model, Content: gemContent{Parts: []gemPart{{Text: in}}}, TaskType: task, OutputDimensionality: max(req.Dimensions, 0)}
	}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	call, err := g.c.post(ctx, g.modelURL(req.Model, "batchEmbedContents"), body, false, g.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	var resp struct {
		Embeddings []struct {
			Values []float32 `json:"values"`
		} `json:"embeddings"`
	}
	if err := decodeResponse("google", call, &resp); err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != len(req.Inputs) {
		return nil, engine.Errorf(engine.CodeUpstream, "google returned %d embeddings for %d inputs", len(resp.Embeddings), len(req.Inputs))
	}
	out := make([][]float32, len(resp.Embeddings))
	for i := range resp.Embeddings {
		out[i] = resp.Embeddings[i].Values
	}
	return out, nil
}

// MaxBatch is the batchEmbedContents limit.
func (g *Google) MaxBatch() int { return 100 }
