package engine

import (
	"context"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// This file is the web search and crawl tools: the requests Hearth accepts
// at /v1/tools/web-search and /v1/tools/crawl, the interfaces their
// service adapters implement, and the validation shared by all of them.

// Limits of the tool endpoints (https://langbase.com/docs/api-reference/tools/crawl,
// https://langbase.com/docs/api-reference/tools/web-search).
const (
	MaxCrawlURLs        = 100
	MaxCrawlPages       = 50
	MaxSearchResults    = 100
	DefaultSearchResult = 10
	MaxSearchQuery      = 4000
	MaxSearchDomains    = 100
)

// ToolResult is one item of a web search or crawl answer.
type ToolResult struct {
	URL     string `json:"url"`
	Content string `json:"content"`
}

// WebSearchRequest is the body of POST /v1/tools/web-search; APIKey comes
// from LB-WEB-SEARCH-KEY (or the body's apiKey).
type WebSearchRequest struct {
	Query        string   `json:"query"`
	Service      string   `json:"service"`
	TotalResults *int     `json:"totalResults"`
	Domains      []string `json:"domains"`
	APIKey       string   `json:"apiKey"`
}

// SearchQuery is one validated call to a web search service.
type SearchQuery struct {
	Query      string
	NumResults int
	Domains    []string
	APIKey     string
}

// WebSearcher is one web search service (exa).
type WebSearcher interface {
	Search(ctx context.Context, q *SearchQuery) ([]ToolResult, error)
}

// CrawlRequest is the body of POST /v1/tools/crawl; APIKey comes from
// LB-CRAWL-KEY (or the body's apiKey).
type CrawlRequest struct {
	URL      []string `json:"url"`
	MaxPages *int     `json:"maxPages"`
	Service  string   `json:"service"`
	APIKey   string   `json:"apiKey"`
}

// CrawlJob is one validated crawl: every start URL, up to MaxPages pages
// per start URL (the start page included).
type CrawlJob struct {
	URLs     []string
	MaxPages int
	APIKey   string
}

// Crawler is one crawl service (spider, firecrawl, or Hearth's own).
type Crawler interface {
	Crawl(ctx context.Context, job *CrawlJob) ([]ToolResult, error)
	// NeedsKey reports whether the service needs LB-CRAWL-KEY.
	NeedsKey() bool
}

// DefaultCrawlService is used when a crawl request names no service.
const DefaultCrawlService = "spider"

// Tools is the web search and crawl use case.
type Tools struct {
	search map[string]WebSearcher
	crawl  map[string]Crawler
}

// NewTools returns the tools service over the given services by name
// ("exa"; "spider", "firecrawl", "hearth").
func NewTools(search map[string]WebSearcher, crawl map[string]Crawler) *Tools {
	return &Tools{search: search, crawl: crawl}
}

func names[T any](m map[string]T) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// WebSearch validates and runs one search. headerKey is LB-WEB-SEARCH-KEY.
func (t *Tools) WebSearch(ctx context.Context, headerKey string, in *WebSearchRequest) ([]ToolResult, error) {
	if len(t.search) == 0 {
		return nil, Errorf(CodeUnavailable, "web search is not configured on this server")
	}
	service := strings.ToLower(strings.TrimSpace(in.Service))
	if service == "" {
		return nil, FieldError("service", "is required (allowed: %s)", names(t.search))
	}
	s, ok := t.search[service]
	if !ok {
		return nil, FieldError("service", "%q is not supported (allowed: %s)", in.Service, names(t.search))
	}
	q := &SearchQuery{Query: strings.TrimSpace(in.Query), NumResults: DefaultSearchResult}
	if q.Query == "" {
		return nil, FieldError("query", "is required")
	}
	if len(q.Query) > MaxSearchQuery {
		return nil, FieldError("query", "must be at most %d bytes", MaxSearchQuery)
	}
	if in.TotalResults != nil {
		if *in.TotalResults < 1 || *in.TotalResults > MaxSearchResults {
			return nil, FieldError("totalResults", "must be from 1 to %d", MaxSearchResults)
		}
		q.NumResults = *in.TotalResults
	}
	if len(in.Domains) > MaxSearchDomains {
		return nil, FieldError("domains", "must have at most %d entries", MaxSearchDomains)
	}
	for _, d := range in.Domains {
		d = strings.TrimSpace(d)
		if d == "" || strings.ContainsAny(d, " \t\r\n") {
			return nil, FieldError("domains", "%q is not a domain such as example.com", d)
		}
		if !slices.Contains(q.Domains, d) {
			q.Domains = append(q.Domains, d)
		}
	}
	q.APIKey = firstNonBlank(headerKey, in.APIKey)
	if err := CheckHeaderValue("LB-WEB-SEARCH-KEY", q.APIKey); err != nil {
		return nil, err
	}
	if q.APIKey == "" {
		return nil, &Error{Code: CodeBadRequest, Field: "LB-WEB-SEARCH-KEY",
			Message: "LB-WEB-SEARCH-KEY: header is required: send your " + service + " API key in it (or as apiKey in the body)"}
	}
	res, err := s.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = []ToolResult{}
	}
	return res, nil
}

// Crawl validates and runs one crawl. headerKey is LB-CRAWL-KEY.
func (t *Tools) Crawl(ctx context.Context, headerKey string, in *CrawlRequest) ([]ToolResult, error) {
	if len(t.crawl) == 0 {
		return nil, Errorf(CodeUnavailable, "crawling is not configured on this server")
	}
	service := strings.ToLower(strings.TrimSpace(in.Service))
	if service == "" {
		service = DefaultCrawlService
	}
	c, ok := t.crawl[service]
	if !ok {
		return nil, FieldError("service", "%q is not supported (allowed: %s)", in.Service, names(t.crawl))
	}
	if len(in.URL) == 0 {
		return nil, FieldError("url", "is required: an array of 1 to %d absolute http(s) URLs", MaxCrawlURLs)
	}
	if len(in.URL) > MaxCrawlURLs {
		return nil, FieldError("url", "must have at most %d entries, got %d", MaxCrawlURLs, len(in.URL))
	}
	job := &CrawlJob{MaxPages: 1}
	for i, raw := range in.URL {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, FieldError("url", "entry %d (%q) is not an absolute http(s) URL", i, raw)
		}
		if u.User != nil {
			return nil, FieldError("url", "entry %d: URLs with credentials are not allowed", i)
		}
		u.Fragment = ""
		if s := u.String(); !slices.Contains(job.URLs, s) {
			job.URLs = append(job.URLs, s)
		}
	}
	if in.MaxPages != nil {
		if *in.MaxPages < 1 || *in.MaxPages > MaxCrawlPages {
			return nil, FieldError("maxPages", "must be from 1 to %d", MaxCrawlPages)
		}
		job.MaxPages = *in.MaxPages
	}
	job.APIKey = firstNonBlank(headerKey, in.APIKey)
	if err := CheckHeaderValue("LB-CRAWL-KEY", job.APIKey); err != nil {
		return nil, err
	}
	if job.APIKey == "" && c.NeedsKey() {
		msg := "LB-CRAWL-KEY: header is required for service " + service + ": send your " + service + " API key in it (or as apiKey in the body)"
		if _, ok := t.crawl["hearth"]; ok {
			msg += `, or use service "hearth", Hearth's built-in crawler, which needs no key`
		}
		return nil, &Error{Code: CodeBadRequest, Field: "LB-CRAWL-KEY", Message: msg}
	}
	res, err := c.Crawl(ctx, job)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = []ToolResult{}
	}
	return res, nil
}

func firstNonBlank(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
