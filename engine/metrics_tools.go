package engine

import (
	"context"
	"time"
)

// InstrumentImages wraps image models so every generation reports its
// latency and outcome as Metrics.UpstreamCall(provider, "image", ...).
func InstrumentImages(models ImageModels, m Metrics) ImageModels {
	if m == nil || models == nil {
		return models
	}
	return instrumentedImages{next: models, m: m}
}

type instrumentedImages struct {
	next ImageModels
	m    Metrics
}

func (im instrumentedImages) ImageModel(ref ModelRef) (ImageGenerator, error) {
	g, err := im.next.ImageModel(ref)
	if err != nil {
		return nil, err
	}
	return instrumentedImage{next: g, provider: ref.Provider, m: im.m}, nil
}

type instrumentedImage struct {
	next     ImageGenerator
	provider string
	m        Metrics
}

func (ig instrumentedImage) GenerateImage(ctx context.Context, req *ImageRequest) (*ImageResult, error) {
	start := time.Now()
	r, err := ig.next.GenerateImage(ctx, req)
	ig.m.UpstreamCall(ig.provider, "image", time.Since(start), err)
	return r, err
}

// InstrumentSearchers wraps web search services (by service name) so each
// search reports as Metrics.UpstreamCall(service, "search", ...).
func InstrumentSearchers(s map[string]WebSearcher, m Metrics) map[string]WebSearcher {
	if m == nil {
		return s
	}
	out := make(map[string]WebSearcher, len(s))
	for name, ws := range s {
		out[name] = instrumentedSearcher{next: ws, name: name, m: m}
	}
	return out
}

type instrumentedSearcher struct {
	next WebSearcher
	name string
	m    Metrics
}

func (is instrumentedSearcher) Search(ctx context.Context, q *SearchQuery) ([]ToolResult, error) {
	start := time.Now()
	r, err := is.next.Search(ctx, q)
	is.m.UpstreamCall(is.name, "search", time.Since(start), err)
	return r, err
}

// InstrumentCrawlers wraps crawl services (by service name, the built-in
// crawler included) so each crawl reports as Metrics.UpstreamCall(service,
// "crawl", ...).
func InstrumentCrawlers(c map[string]Crawler, m Metrics) map[string]Crawler {
	if m == nil {
		return c
	}
	out := make(map[string]Crawler, len(c))
	for name, cr := range c {
		out[name] = instrumentedCrawler{next: cr, name: name, m: m}
	}
	return out
}

type instrumentedCrawler struct {
	next Crawler
	name string
	m    Metrics
}

func (ic instrumentedCrawler) Crawl(ctx context.Context, job *CrawlJob) ([]ToolResult, error) {
	start := time.Now()
	r, err := ic.next.Crawl(ctx, job)
	ic.m.UpstreamCall(ic.name, "crawl", time.Since(start), err)
	return r, err
}

func (ic instrumentedCrawler) NeedsKey() bool { return ic.next.NeedsKey() }
