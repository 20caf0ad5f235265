package engine

import (
	"context"
	"encoding/json"
	"time"
)

// timed runs one upstream call and reports its latency and outcome.
func timed[T any](m Metrics, provider, kind string, call func() (T, error)) (T, error) {
	start := time.Now()
	r, err := call()
	m.UpstreamCall(provider, kind, time.Since(start), err)
	return r, err
}

// instrumentMap wraps every service of a name-keyed map.
func instrumentMap[T any](in map[string]T, m Metrics, wrap func(name string, v T) T) map[string]T {
	if m == nil {
		return in
	}
	out := make(map[string]T, len(in))
	for name, v := range in {
		out[name] = wrap(name, v)
	}
	return out
}

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
	return timed(ig.m, ig.provider, "image", func() (*ImageResult, error) { return ig.next.GenerateImage(ctx, req) })
}

// InstrumentSearchers wraps web search services (by service name) so each
// search reports as Metrics.UpstreamCall(service, "search", ...).
func InstrumentSearchers(s map[string]WebSearcher, m Metrics) map[string]WebSearcher {
	return instrumentMap(s, m, func(name string, ws WebSearcher) WebSearcher {
		return instrumentedSearcher{next: ws, name: name, m: m}
	})
}

type instrumentedSearcher struct {
	next WebSearcher
	name string
	m    Metrics
}

func (is instrumentedSearcher) Search(ctx context.Context, q *SearchQuery) ([]ToolResult, error) {
	return timed(is.m, is.name, "search", func() ([]ToolResult, error) { return is.next.Search(ctx, q) })
}

// InstrumentCrawlers wraps crawl services (by service name, the built-in
// crawler included) so each crawl reports as Metrics.UpstreamCall(service,
// "crawl", ...).
func InstrumentCrawlers(c map[string]Crawler, m Metrics) map[string]Crawler {
	return instrumentMap(c, m, func(name string, cr Crawler) Crawler {
		return instrumentedCrawler{next: cr, name: name, m: m}
	})
}

type instrumentedCrawler struct {
	next Crawler
	name string
	m    Metrics
}

func (ic instrumentedCrawler) Crawl(ctx context.Context, job *CrawlJob) ([]ToolResult, error) {
	return timed(ic.m, ic.name, "crawl", func() ([]ToolResult, error) { return ic.next.Crawl(ctx, job) })
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
	s, err := timed(it.m, "mcp", "mcp_connect", func() (ToolSession, error) { return it.next.Connect(ctx, server) })
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
	return timed(is.m, "mcp", "mcp_call", func() (*RemoteToolResult, error) { return is.ToolSession.Call(ctx, name, args) })
}
