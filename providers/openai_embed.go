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
	// Dimensions and OutputDimension carry EmbedRequest.Dimensions, in
	// the field the host reads (see embedDimensionsField).
	Dimensions      int `json:"dimensions,omitempty"`
	OutputDimension int `json:"output_dimension,omitempty"`
}

type oaiEmbedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed calls /embeddings, in as many requests as the host's cap on
// tokens per request needs (Mistral refuses more than 16384 tokens in one
// request with code 3210, whatever the number of inputs). Ollama is served
// through the same OpenAI-wire endpoint of its /v1 root, so one code path
// covers it.
func (o *OpenAI) Embed(ctx context.Context, req *engine.EmbedRequest) ([][]float32, error) {
	if _, err := embedDimensionsField(o.host, req); err != nil {
		return nil, err
	}
	out := make([][]float32, 0, len(req.Inputs))
	for _, b := range tokenBatches(req.Inputs, o.host.maxBatchTokens) {
		vecs, err := o.embed(ctx, req, req.Inputs[b[0]:b[1]])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// estimateTokens over-estimates the tokens of s for any tokenizer Hearth
// meets: English averages about 4 bytes per token, code and non-Latin
// scripts nearer 2.5, so 2.5 bytes per token rarely under-counts.
func estimateTokens(s string) int { return len(s)*2/5 + 1 }

// tokenBatches splits inputs into [start, end) ranges whose estimated
// tokens stay within budget (0: one range). An input over the budget on
// its own is sent alone, for the host to judge.
func tokenBatches(inputs []string, budget int) [][2]int {
	if budget <= 0 || len(inputs) == 0 {
		return [][2]int{{0, len(inputs)}}
	}
	var out [][2]int
	start, sum := 0, 0
	for i, in := range inputs {
		n := estimateTokens(in)
		if i > start && sum+n > budget {
			out = append(out, [2]int{start, i})
			start, sum = i, 0
		}
		sum += n
	}
	return append(out, [2]int{start, len(inputs)})
}

func (o *OpenAI) embed(ctx context.Context, req *engine.EmbedRequest, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return [][]float32{}, nil
	}
	wire := oaiEmbedRequest{Model: req.Model, Input: inputs, EncodingFormat: "float"}
	field, err := embedDimensionsField(o.host, req)
	if err != nil {
		return nil, err
	}
	switch field {
	case "dimensions":
		wire.Dimensions = req.Dimensions
	case "output_dimension":
		wire.OutputDimension = req.Dimensions
	}
	body, err := json.Marshal(wire)
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
	if len(resp.Data) != len(inputs) {
		return nil, engine.Errorf(engine.CodeUpstream, "%s returned %d embeddings for %d inputs", o.host.name, len(resp.Data), len(inputs))
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
