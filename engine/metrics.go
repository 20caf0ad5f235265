package engine

import "time"

// Metrics receives operational measurements from engine services and
// adapters. The server implements it with Prometheus (server/metrics);
// NopMetrics discards everything, so a service built without metrics needs
// no nil checks: use MetricsOrNop.
//
// Calls must be cheap and safe for concurrent use. Label values passed in
// are bounded by the implementation (model names are capped), so callers
// may pass what the request named.
type Metrics interface {
	// UpstreamCall records one call to an outside service: provider is the
	// provider name ("openai", "exa", ...), kind what was called ("chat",
	// "chat_stream", "embed", "rerank", "moderation", "image", "search", "crawl",
	// "mcp"), d how long it took (for a stream: until its end) and err its
	// outcome (nil for success; engine error codes become the code label).
	UpstreamCall(provider, kind string, d time.Duration, err error)
	// ModelUsage records the tokens and list-price cost in USD (0 when
	// unknown) of one model call. InstrumentProviders calls it for every
	// chat completion, so services using instrumented providers must not.
	ModelUsage(provider, model string, promptTokens, completionTokens int, costUSD float64)
	// IngestionJob records the end of one ingestion attempt. outcome is
	// "completed", "failed" or "requeued" (crash recovery, shutdown, retry).
	IngestionJob(outcome string, d time.Duration)
}

// Gauges that are cheaper to read than to keep (index sizes, the job
// queue) are read at scrape time instead: main.go hands the metrics
// adapter functions over index.Manager.Stats and memory.Service.JobCounts.

// IndexSizes sums the search indexes of every loaded memory, read at
// scrape time (index.Manager.Stats summed by main.go).
type IndexSizes struct {
	Memories      int
	Vectors       int
	Tombstones    int
	Bytes         int64
	SnapshotBytes int64
	KeywordDocs   uint64
}

// NopMetrics is a Metrics that records nothing.
type NopMetrics struct{}

func (NopMetrics) UpstreamCall(string, string, time.Duration, error) {}
func (NopMetrics) ModelUsage(string, string, int, int, float64)      {}
func (NopMetrics) IngestionJob(string, time.Duration)                {}

// MetricsOrNop returns m, or NopMetrics when m is nil.
func MetricsOrNop(m Metrics) Metrics {
	if m == nil {
		return NopMetrics{}
	}
	return m
}

var _ Metrics = NopMetrics{}
