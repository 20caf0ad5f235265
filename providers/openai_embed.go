package providers

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/hearth-dev/hearth/engine"
)

type oaiEmbedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format,omitempty"`
}

type oaiEmbedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed calls /embeddings. Ollama is served through the same OpenAI-wire
// endpoint of its /v1 root, so one code path covers it.
func (o *OpenAI) Embed(ctx context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	if len(req.Inputs) == 0 {
		return [][]float32{}, nil
	}
	body, err := json.Marshal(oaiEmbedRequest{Model: req.Model, Input: req.Inputs, EncodingFormat: "float"})
	if err != nil {
		return nil, err
	}
	call, err := o.c.post(ctx, o.baseURL+"/embeddings", body, false, o.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	var resp oaiEmbedResponse
	if err := decodeResponse(o.host.name, call, &resp); err != nil {
		return nil, err
	}
	if len(resp.Data) != len(req.Inputs) {
		return nil, engine.Errorf(engine.CodeUpstream, "%s returned %d embeddings for %d inputs", o.host.name, len(resp.Data), len(req.Inputs))
	}
	sort.SliceStable(resp.Data, func(i, j int) bool { return resp.Data[i].Index < resp.Data[j].Index })
	out := make([][]float32, len(resp.Data))
	for i := range resp.Data {
		out[i] = resp.Data[i].Embedding
	}
	return out, nil
}

// MaxBatch is the most inputs the host takes in one /embeddings call.
func (o *OpenAI) MaxBatch() int {
	if o.host.maxBatch > 0 {
		return o.host.maxBatch
	}
	return 64
}

// ModerationModel is the model used by Moderate.
const ModerationModel = "omni-moderation-latest"

// Moderate calls /moderations and reports the union of flagged categories.
func (o *OpenAI) Moderate(ctx context.Context, apiKey string, input []string) (*engine.ModerationResult, error) {
	body, err := json.Marshal(map[string]any{"model": ModerationModel, "input": input})
	if err != nil {
		return nil, err
	}
	call, err := o.c.post(ctx, o.baseURL+"/moderations", body, false, o.headers(apiKey))
	if err != nil {
		return nil, err
	}
	var resp struct {
		Results []struct {
			Flagged    bool            `json:"flagged"`
			Categories map[string]bool `json:"categories"`
		} `json:"results"`
	}
	if err := decodeResponse(o.host.name, call, &resp); err != nil {
		return nil, err
	}
	res := &engine.ModerationResult{}
	seen := map[string]bool{}
	for _, r := range resp.Results {
		res.Flagged = res.Flagged || r.Flagged
		for c, on := range r.Categories {
			if on && !seen[c] {
				seen[c] = true
				res.Categories = append(res.Categories, c)
			}
		}
	}
	sort.Strings(res.Categories)
	return res, nil
}
