package server

import "encoding/json"

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
