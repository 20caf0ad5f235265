package server

import (
	"encoding/json"

	"github.com/hearth-dev/hearth/engine"
)

// Request and response shapes of the OpenAI-compatible surface that the
// handlers decode and encode, named so /openapi.json can describe them.
type (
	openAIModerationBody struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	openAIModerationResult struct {
		Flagged        bool               `json:"flagged"`
		Categories     map[string]bool    `json:"categories"`
		CategoryScores map[string]float64 `json:"category_scores"`
	}
	openAIModerationResponse struct {
		ID      string                   `json:"id"`
		Model   string                   `json:"model"`
		Results []openAIModerationResult `json:"results"`
	}
	openAIImageBody struct {
		Prompt         string `json:"prompt"`
		Model          string `json:"model"`
		N              *int   `json:"n"`
		Size           string `json:"size"`
		Quality        string `json:"quality"`
		ResponseFormat string `json:"response_format"`
	}
	openAIImage struct {
		URL     string `json:"url,omitempty"`
		B64JSON string `json:"b64_json,omitempty"`
	}
	openAIImageResponse struct {
		Created int64         `json:"created"`
		Data    []openAIImage `json:"data"`
	}
)

// openAIRouteDocs documents the /openai/v1 routes (README "OpenAI-compatible API").
var openAIRouteDocs = map[string]RouteDoc{
	"POST " + openAIPrefix + "/chat/completions": {Summary: "OpenAI-compatible chat completion: a provider model (provider:model or provider/model) or a pipe (pipe:<name>)",
		Request: engine.CompletionRequest{}, Response: engine.ChatResponse{}, Stream: true},
	"POST " + openAIPrefix + "/embeddings": {Summary: "OpenAI-compatible embeddings (float or base64)",
		Request: openAIEmbeddingBody{}, Response: openAIEmbeddingResponse{}},
	"GET " + openAIPrefix + "/models":   {Summary: "Models this key can run, pipe: entries included", Response: openAIList[openAIModel]{}},
	"GET " + openAIPrefix + "/models/*": {Summary: "One model this key can run", Response: openAIModel{}},
	"POST " + openAIPrefix + "/images/generations": {Summary: "OpenAI-compatible image generation",
		Request: openAIImageBody{}, Response: openAIImageResponse{}},
	"POST " + openAIPrefix + "/moderations": {Summary: "OpenAI-compatible moderation, one result per input",
		Request: openAIModerationBody{}, Response: openAIModerationResponse{}},
}

func init() {
	for k, v := range openAIRouteDocs {
		routeDocs[k] = v
	}
}
