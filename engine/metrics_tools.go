package engine

import (
	"context"
	"encoding/json"
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

// InstrumentToolServers wraps the MCP client so each connect and tool
// call reports as Metrics.UpstreamCall("mcp", "mcp_connect" or "mcp_call",
// ...). Server URLs are user data, so they are not labels.
func InstrumentToolServers(ts ToolServers, m Metrics) ToolServers {
	if m == nil || ts == nil {
		return ts
	}
	return instrumentedToolServers{next: ts, m: m}
}

type instrumentedToolServers struct {
	next ToolServers
	m    Metrics
}

func (it instrumentedToolServers) Connect(ctx context.Context, server MCPServer) (ToolSession, error) {
	start := time.Now()
	s, err := it.next.Connect(ctx, server)
	it.m.UpstreamCall("mcp", "mcp_connect", time.Since(start), err)
	if err != nil {
		return nil, err
	}
	return instrumentedSession{ToolSession: s, m: it.m}, nil
}

type instrumentedSession struct {
	ToolSession
	m Metrics
}

func (is instrumentedSession) Call(ctx context.Context, name string, args json.RawMessage) (*RemoteToolResult, error) {
	start := time.Now()
	r, err := is.ToolSession.Call(ctx, name, args)
	is.m.UpstreamCall("mcp", "mcp_call", time.Since(start), err)
	return r, err
}
