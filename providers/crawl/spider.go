// Package crawl holds Hearth's crawl services: the Spider and Firecrawl
// adapters (the two services the langbase SDK names) and Builtin, Hearth's
// own crawler (service "hearth"), which needs no key and fetches pages
// itself under the operator's outbound address policy.
package crawl

import (
	"context"
	"net/http"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// DefaultSpiderURL is Spider's public API.
const DefaultSpiderURL = "https://api.spider.cloud"

// Spider crawls with POST {base}/crawl: every start URL in one call (comma
// separated), limit = maxPages per site, markdown output. The key is sent
// as a Bearer token.
type Spider struct {
	baseURL string
	up      *providers.Upstream
}

var _ engine.Crawler = (*Spider)(nil)

// NewSpider returns the adapter for baseURL ("" means DefaultSpiderURL);
// the client, retry policy and timeout come from cfg.
func NewSpider(baseURL string, cfg providers.Config) *Spider {
	if baseURL = strings.TrimRight(baseURL, "/"); baseURL == "" {
		baseURL = DefaultSpiderURL
	}
	return &Spider{baseURL: baseURL, up: providers.NewUpstream("spider", cfg, 64<<20)}
}

// NeedsKey implements engine.Crawler.
func (s *Spider) NeedsKey() bool { return true }

type spiderRequest struct {
	URL          string `json:"url"`
	Limit        int    `json:"limit"`
	ReturnFormat string `json:"return_format"`
}

type spiderPage struct {
	URL     string  `json:"url"`
	Content *string `json:"content"`
	Error   *string `json:"error"`
	Status  int     `json:"status"`
}

// Crawl implements engine.Crawler.
func (s *Spider) Crawl(ctx context.Context, job *engine.CrawlJob) ([]engine.ToolResult, error) {
	urls := make([]string, len(job.URLs))
	for i, u := range job.URLs {
		// A comma separates URLs in Spider's url field.
		urls[i] = strings.ReplaceAll(u, ",", "%2C")
	}
	body := spiderRequest{URL: strings.Join(urls, ","), Limit: job.MaxPages, ReturnFormat: "markdown"}
	var pages []spiderPage
	err := s.up.PostJSON(ctx, s.baseURL+"/crawl", body, &pages, func(h http.Header) {
		h.Set("Authorization", "Bearer "+job.APIKey)
	})
	if err != nil {
		return nil, keyError("spider", err)
	}
	out := make([]engine.ToolResult, 0, len(pages))
	var failed []string
	for _, p := range pages {
		if p.Content == nil || strings.TrimSpace(*p.Content) == "" {
			if p.Error != nil && *p.Error != "" {
				failed = append(failed, p.URL+": "+*p.Error)
			}
			continue
		}
		out = append(out, engine.ToolResult{URL: p.URL, Content: strings.TrimSpace(*p.Content)})
	}
	if len(out) == 0 && len(failed) > 0 {
		return nil, engine.Errorf(engine.CodeUpstream, "spider could not crawl any page: %s", clip(strings.Join(failed, "; ")))
	}
	return out, nil
}

// keyError words a rejected crawl key the way the caller can act on.
func keyError(service string, err error) error {
	switch providers.UpstreamStatus(err) {
	case http.StatusUnauthorized, http.StatusForbidden:
		return engine.Wrap(err, engine.CodeBadRequest, "%s rejected the crawl key (LB-CRAWL-KEY)", service)
	case http.StatusPaymentRequired:
		return engine.Wrap(err, engine.CodeBadRequest, "%s refused the crawl: the account behind LB-CRAWL-KEY has no credits left", service)
	}
	return err
}

func clip(s string) string {
	if len(s) > 500 {
		return s[:500] + "..."
	}
	return s
}
