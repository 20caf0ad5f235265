package providers

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

type cohEmbedRequest struct {
	Model          string   `json:"model"`
	Texts          []string `json:"texts"`
	InputType      string   `json:"input_type"`
	EmbeddingTypes []string `json:"embedding_types"`
	// OutputDimension is EmbedRequest.Dimensions (embed-v4.0 and newer).
	OutputDimension int `json:"output_dimension,omitempty"`
}

// Embed calls v2 /embed with input_type search_document for documents and
// search_query for queries (embed-v4.0, embed-multilingual-v3.0,
// embed-multilingual-light-v3.0, ...).
func (c *Cohere) Embed(ctx context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	if len(req.Inputs) == 0 {
		return [][]float32{}, nil
	}
	inputType := "search_document"
	if req.Purpose == engine.EmbedQuery {
		inputType = "search_query"
	}
	wire := cohEmbedRequest{Model: req.Model, Texts: req.Inputs, InputType: inputType, EmbeddingTypes: []string{"float"}}
	if req.Dimensions > 0 {
		if strings.HasPrefix(req.Model, "embed-v3") || strings.HasPrefix(req.Model, "embed-english") || strings.HasPrefix(req.Model, "embed-multilingual") {
			return nil, refuseDimensions("cohere", req.Model)
		}
		wire.OutputDimension = req.Dimensions
	}
	body, err := json.Marshal(wire)
	if err != nil {
		return nil, err
	}
	call, err := c.c.post(ctx, c.baseURL+"/embed", body, false, c.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	var resp struct {
		Embeddings struct {
			Float [][]float32 `json:"float"`
		} `json:"embeddings"`
	}
	if err := decodeResponse("cohere", call, &resp); err != nil {
		return nil, err
	}
	if len(resp.Embeddings.Float) != len(req.Inputs) {
		return nil, engine.Errorf(engine.CodeUpstream, "cohere returned %d embeddings for %d inputs", len(resp.Embeddings.Float), len(req.Inputs))
	}
	return resp.Embeddings.Float, nil
}

// MaxBatch is the /embed limit of 96 texts.
func (c *Cohere) MaxBatch() int { return 96 }
