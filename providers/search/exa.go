// Package search holds Hearth's web search adapters. Exa is the one the
// langbase SDK names (service "exa"): POST {base}/search with the caller's
// key in x-api-key, asking for each result's page text.
package search

import (
	"context"
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// DefaultExaURL is Exa's public API.
const DefaultExaURL = "https://api.exa.ai"

// MaxResultText bounds the page text asked for per result (characters).
const MaxResultText = 10000

// Exa is the Exa search adapter.
type Exa struct {
	baseURL string
	up      *providers.Upstream
}

var _ engine.WebSearcher = (*Exa)(nil)

// NewExa returns the adapter for baseURL ("" means DefaultExaURL); the
// client, retry policy and timeout come from cfg.
func NewExa(baseURL string, cfg providers.Config) *Exa {
	if baseURL = strings.TrimRight(baseURL, "/"); baseURL == "" {
		baseURL = DefaultExaURL
	}
	return &Exa{baseURL: baseURL, up: providers.NewUpstream("exa", cfg, 32<<20)}
}

type exaRequest struct {
	Query          string      `json:"query"`
	NumResults     int         `json:"numResults"`
	IncludeDomains []string    `json:"includeDomains,omitempty"`
	Contents       exaContents `json:"contents"`
}

type exaContents struct {
	Text exaText `json:"text"`
}

type exaText struct {
	MaxCharacters int `json:"maxCharacters"`
}

type exaResponse struct {
	RequestID string `json:"requestId"`
	Results   []struct {
		ID    string `json:"id"`
		URL   string `json:"url"`
		Title string `json:"title"`
		Text  string `json:"text"`
	} `json:"results"`
}

// Search implements engine.WebSearcher.
func (e *Exa) Search(ctx context.Context, q *engine.SearchQuery) ([]engine.ToolResult, error) {
	body := exaRequest{Query: q.Query, NumResults: q.NumResults, IncludeDomains: q.Domains,
		Contents: exaContents{Text: exaText{MaxCharacters: MaxResultText}}}
	var resp exaResponse
	err := e.up.PostJSON(ctx, e.baseURL+"/search", body, &resp, func(h http.Header) { h.Set("x-api-key", q.APIKey) })
	if err != nil {
		switch providers.UpstreamStatus(err) {
		case http.StatusUnauthorized, http.StatusForbidden:
			return nil, engine.Wrap(err, engine.CodeBadRequest, "exa rejected the web search key (LB-WEB-SEARCH-KEY)")
		}
		return nil, err
	}
	out := make([]engine.ToolResult, 0, len(resp.Results))
	for _, r := range resp.Results {
		content := strings.TrimSpace(r.Text)
		if content == "" {
			content = strings.TrimSpace(r.Title)
		}
		out = append(out, engine.ToolResult{URL: r.URL, Content: content})
	}
	return out, nil
}
