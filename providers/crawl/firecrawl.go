package crawl

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// DefaultFirecrawlURL is Firecrawl's public API, version 2 (current).
const DefaultFirecrawlURL = "https://api.firecrawl.dev/v2"

// Firecrawl crawls each start URL on its own: POST {base}/scrape when one
// page is asked for, else POST {base}/crawl (limit = maxPages) and a poll
// of GET {base}/crawl/{id} until the job completes, following its "next"
// pages. Markdown of the main content is asked for; the key is a Bearer
// token. At most 4 start URLs are in flight at once.
//
// The API version is the base URL's last path segment: /v2 (the default)
// or /v1 (self-hosted Firecrawl that has not moved on). The fields Hearth
// sends (url, formats ["markdown"], onlyMainContent, limit,
// scrapeOptions) and reads (success, data.markdown, data.metadata,
// status, next) mean the same in both
// (https://docs.firecrawl.dev/migrate-to-v2), so one request shape
// serves both; the fields v2 renamed (maxDepth, ignoreSitemap,
// allowBackwardLinks) are not used.
type Firecrawl struct {
	baseURL string
	version string
	up      *providers.Upstream
	// PollInterval is the wait between status polls (default 2 s).
	PollInterval time.Duration
	// MaxWait bounds one crawl job, polls included (default 5 min).
	MaxWait time.Duration
}

var _ engine.Crawler = (*Firecrawl)(nil)

// NewFirecrawl returns the adapter for baseURL ("" means
// DefaultFirecrawlURL; a URL without a version segment gets /v2); the
// client, retry policy and timeout come from cfg.
func NewFirecrawl(baseURL string, cfg providers.Config) *Firecrawl {
	baseURL, version := firecrawlBase(baseURL)
	return &Firecrawl{baseURL: baseURL, version: version, up: providers.NewUpstream("firecrawl", cfg, 64<<20),
		PollInterval: 2 * time.Second, MaxWait: 5 * time.Minute}
}

// firecrawlBase returns the base URL with its version segment and the
// version ("v1" or "v2").
func firecrawlBase(baseURL string) (string, string) {
	if baseURL = strings.TrimRight(baseURL, "/"); baseURL == "" {
		baseURL = DefaultFirecrawlURL
	}
	last := baseURL[strings.LastIndexByte(baseURL, '/')+1:]
	switch last {
	case "v1", "v2":
		return baseURL, last
	}
	return baseURL + "/v2", "v2"
}

// Version is the Firecrawl API version in use ("v1" or "v2").
func (f *Firecrawl) Version() string { return f.version }

// NeedsKey implements engine.Crawler.
func (f *Firecrawl) NeedsKey() bool { return true }

type fcScrapeOptions struct {
	Formats         []string `json:"formats"`
	OnlyMainContent bool     `json:"onlyMainContent"`
}

type fcScrapeRequest struct {
	URL string `json:"url"`
	fcScrapeOptions
}

type fcCrawlRequest struct {
	URL           string          `json:"url"`
	Limit         int             `json:"limit"`
	ScrapeOptions fcScrapeOptions `json:"scrapeOptions"`
}

type fcDocument struct {
	Markdown string `json:"markdown"`
	Metadata struct {
		SourceURL  string `json:"sourceURL"`
		URL        string `json:"url"`
		StatusCode int    `json:"statusCode"`
		Error      string `json:"error"`
	} `json:"metadata"`
}

func (d *fcDocument) result(fallback string) (engine.ToolResult, bool) {
	u := d.Metadata.SourceURL
	if u == "" {
		u = d.Metadata.URL
	}
	if u == "" {
		u = fallback
	}
	c := strings.TrimSpace(d.Markdown)
	return engine.ToolResult{URL: u, Content: c}, c != ""
}

type fcScrapeResponse struct {
	Success bool       `json:"success"`
	Error   string     `json:"error"`
	Data    fcDocument `json:"data"`
}

type fcCrawlStarted struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	ID      string `json:"id"`
}

type fcCrawlStatus struct {
	Success *bool        `json:"success"`
	Status  string       `json:"status"`
	Error   string       `json:"error"`
	Next    string       `json:"next"`
	Data    []fcDocument `json:"data"`
}

func (f *Firecrawl) headers(key string) func(http.Header) {
	return func(h http.Header) { h.Set("Authorization", "Bearer "+key) }
}

// Crawl implements engine.Crawler. Results keep the order of the start URLs.
func (f *Firecrawl) Crawl(ctx context.Context, job *engine.CrawlJob) ([]engine.ToolResult, error) {
	per := make([][]engine.ToolResult, len(job.URLs))
	errs := make([]error, len(job.URLs))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, u := range job.URLs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if job.MaxPages == 1 {
				per[i], errs[i] = f.scrape(ctx, u, job.APIKey)
			} else {
				per[i], errs[i] = f.crawl(ctx, u, job.MaxPages, job.APIKey)
			}
		}()
	}
	wg.Wait()
	var out []engine.ToolResult
	var firstErr error
	for i := range per {
		out = append(out, per[i]...)
		if errs[i] != nil && firstErr == nil {
			firstErr = errs[i]
		}
	}
	// A rejected key fails every URL alike: report it rather than an empty list.
	if len(out) == 0 && firstErr != nil {
		return nil, keyError("firecrawl", firstErr)
	}
	return out, nil
}

func (f *Firecrawl) scrape(ctx context.Context, u, key string) ([]engine.ToolResult, error) {
	var resp fcScrapeResponse
	body := fcScrapeRequest{URL: u, fcScrapeOptions: fcScrapeOptions{Formats: []string{"markdown"}, OnlyMainContent: true}}
	if err := f.up.PostJSON(ctx, f.baseURL+"/scrape", body, &resp, f.headers(key)); err != nil {
		return nil, err
	}
	if !resp.Success {
		return nil, engine.Errorf(engine.CodeUpstream, "firecrawl could not scrape %s: %s", u, clip(resp.Error))
	}
	if r, ok := resp.Data.result(u); ok {
		return []engine.ToolResult{r}, nil
	}
	return nil, nil
}

func (f *Firecrawl) crawl(ctx context.Context, u string, limit int, key string) ([]engine.ToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, f.MaxWait)
	defer cancel()
	var started fcCrawlStarted
	body := fcCrawlRequest{URL: u, Limit: limit, ScrapeOptions: fcScrapeOptions{Formats: []string{"markdown"}, OnlyMainContent: true}}
	if err := f.up.PostJSON(ctx, f.baseURL+"/crawl", body, &started, f.headers(key)); err != nil {
		return nil, err
	}
	if !started.Success || started.ID == "" {
		return nil, engine.Errorf(engine.CodeUpstream, "firecrawl did not start a crawl of %s: %s", u, clip(started.Error))
	}
	statusURL := f.baseURL + "/crawl/" + url.PathEscape(started.ID)
	var st fcCrawlStatus
	for {
		st = fcCrawlStatus{}
		if err := f.up.Get(ctx, statusURL, &st, f.headers(key)); err != nil {
			return nil, err
		}
		if st.Status == "completed" || st.Status == "failed" || st.Status == "cancelled" {
			break
		}
		if err := providers.SleepCtx(ctx, f.PollInterval); err != nil {
			return nil, engine.Wrap(err, engine.CodeUpstreamTimeout, "firecrawl did not finish crawling %s in time", u)
		}
	}
	if st.Status != "completed" {
		return nil, engine.Errorf(engine.CodeUpstream, "firecrawl crawl of %s %s: %s", u, st.Status, clip(st.Error))
	}
	var out []engine.ToolResult
	for pages := 0; ; pages++ {
		for i := range st.Data {
			if r, ok := st.Data[i].result(u); ok && len(out) < limit {
				out = append(out, r)
			}
		}
		// "next" holds the rest of a large answer; follow it only on
		// Firecrawl's own origin, where the key may go.
		if st.Next == "" || len(out) >= limit || pages > 100 || !sameOrigin(st.Next, f.baseURL) {
			return out, nil
		}
		next := st.Next
		st = fcCrawlStatus{}
		if err := f.up.Get(ctx, next, &st, f.headers(key)); err != nil {
			return out, nil
		}
	}
}

func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && strings.EqualFold(ua.Host, ub.Host)
}
