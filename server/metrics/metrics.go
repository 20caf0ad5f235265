// Package metrics is Hearth's Prometheus adapter: HTTP request metrics
// recorded by the server middleware, and the engine.Metrics hooks engine
// services report through (upstream calls, tokens and cost, ingestion jobs,
// index sizes). Each Metrics owns its registry, so several servers in one
// process (tests) never share or collide.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// durationBuckets cover quick API calls up to long streams (seconds).
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// maxModels bounds the distinct provider/model label pairs: model names
// come from requests, so without a cap a client could grow the series set
// without end. Pairs past the cap are counted under model="other".
const maxModels = 500

// Metrics implements engine.Metrics and the server's HTTP metrics on one
// Prometheus registry. The zero value is not usable; call New.
type Metrics struct {
	reg *prometheus.Registry

	requests    *prometheus.CounterVec
	reqDuration *prometheus.HistogramVec
	// inFlight counts the requests being served, read by the
	// hearth_http_requests_in_flight gauge at each scrape: an atomic add a
	// request instead of a gauge's compare-and-swap loop on a float. It is
	// this process's count; each Hearth node exports its own.
	inFlight atomic.Int64
	rejected *prometheus.CounterVec

	upstream         *prometheus.CounterVec
	upstreamDuration *prometheus.HistogramVec
	tokens           *prometheus.CounterVec
	cost             *prometheus.CounterVec

	jobs        *prometheus.CounterVec
	jobDuration *prometheus.HistogramVec
	// guardActions counts guardrail actions (guard.go).
	guardActions *guardCounter

	// The children of the vectors recorded on every request
	// (children.go).
	requestsC, upstreamC, tokensC, costC *childCache[prometheus.Counter]
	reqDurationC, upstreamDurationC      *childCache[prometheus.Observer]

	modelsMu sync.Mutex
	models   map[[2]string]bool
	// admitted holds the pairs of models, read without modelsMu.
	admitted sync.Map

	index    atomic.Pointer[func() engine.IndexSizes]
	jobQueue atomic.Pointer[func() (queued, running int)]
}

var _ engine.Metrics = (*Metrics)(nil)
var _ engine.GuardMetrics = (*Metrics)(nil)

// New returns metrics on a fresh registry, with the Go runtime and process
// collectors and a hearth_build_info series carrying version.
func New(version string) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), models: map[[2]string]bool{}}
	f := factory{m.reg}
	m.requests = f.counter("hearth_http_requests_total", "HTTP requests answered, by method, route template and status.", "method", "route", "status")
	m.reqDuration = f.histogram("hearth_http_request_duration_seconds", "Time to answer an HTTP request (a stream counts until its end), by method and route template.", "method", "route")
	inFlight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hearth_http_requests_in_flight", Help: "HTTP requests being served now, streams included."},
		func() float64 { return float64(m.inFlight.Load()) })
	m.rejected = f.counter("hearth_http_rejected_total", "Requests refused by a limit, by reason (rate_limit_key, rate_limit_pipe, inflight_key, inflight_ip, overload, budget).", "reason")
	m.upstream = f.counter("hearth_upstream_requests_total", "Calls to providers and other outside services, by provider, kind and outcome code (ok, canceled or an error code).", "provider", "kind", "code")
	m.upstreamDuration = f.histogram("hearth_upstream_request_duration_seconds", "Duration of calls to providers and other outside services (a stream counts until its end).", "provider", "kind")
	m.tokens = f.counter("hearth_model_tokens_total", "Tokens used by model calls, by provider, model and type (prompt, completion).", "provider", "model", "type")
	m.cost = f.counter("hearth_model_cost_usd_total", "List-price cost in USD of model calls, by provider and model (0 for unpriced models).", "provider", "model")
	m.jobs = f.counter("hearth_ingestion_jobs_total", "Ingestion job attempts that ended, by outcome (completed, failed, requeued).", "outcome")
	m.guardActions = newGuardCounter(f)
	m.jobDuration = f.histogram("hearth_ingestion_job_duration_seconds", "Duration of ingestion job attempts, by outcome.", "outcome")
	m.requestsC, m.reqDurationC = newChildCache[prometheus.Counter](m.requests, 3), newChildCache[prometheus.Observer](m.reqDuration, 2)
	m.upstreamC, m.upstreamDurationC = newChildCache[prometheus.Counter](m.upstream, 3), newChildCache[prometheus.Observer](m.upstreamDuration, 2)
	m.tokensC, m.costC = newChildCache[prometheus.Counter](m.tokens, 3), newChildCache[prometheus.Counter](m.cost, 2)
	buildInfo := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hearth_build_info", Help: "Always 1; the version label is the running Hearth version."}, []string{"version"})
	buildInfo.WithLabelValues(version).Set(1)
	m.reg.MustRegister(inFlight, buildInfo, &indexCollector{m: m},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

type factory struct{ reg *prometheus.Registry }

func (f factory) counter(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histogram(name, help string, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: durationBuckets}, labels)
	f.reg.MustRegister(h)
	return h
}

// Registry returns the underlying registry (to add collectors, or in tests).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Request records one answered HTTP request. route is the route template
// ("/v1/pipes/:name"), never the raw path, so series stay bounded.
func (m *Metrics) Request(method, route string, status int, d time.Duration) {
	m.requestsC.with([3]string{method, route, statusLabel(status)}).Inc()
	m.reqDurationC.with([3]string{method, route}).Observe(d.Seconds())
}

// InFlight adds delta (+1 on entry, -1 on exit) to the in-flight gauge.
func (m *Metrics) InFlight(delta int) { m.inFlight.Add(int64(delta)) }

// Rejected counts a request refused by a limit ("rate_limit_key",
// "rate_limit_pipe", "inflight_key", "inflight_ip", "overload", "budget").
func (m *Metrics) Rejected(reason string) { m.rejected.WithLabelValues(reason).Inc() }

// WatchIndex registers the function read at every scrape for the
// hearth_index_* gauges (server/app sums index.Manager.Stats).
func (m *Metrics) WatchIndex(fn func() engine.IndexSizes) { m.index.Store(&fn) }

// UpstreamCall implements engine.Metrics.
func (m *Metrics) UpstreamCall(provider, kind string, d time.Duration, err error) {
	m.upstreamC.with([3]string{provider, kind, outcomeCode(err)}).Inc()
	m.upstreamDurationC.with([3]string{provider, kind}).Observe(d.Seconds())
}

// ModelUsage implements engine.Metrics.
func (m *Metrics) ModelUsage(provider, model string, promptTokens, completionTokens int, costUSD float64) {
	model = m.modelLabel(provider, model)
	if promptTokens > 0 {
		m.tokensC.with([3]string{provider, model, "prompt"}).Add(float64(promptTokens))
	}
	if completionTokens > 0 {
		m.tokensC.with([3]string{provider, model, "completion"}).Add(float64(completionTokens))
	}
	m.costC.with([3]string{provider, model}).Add(max(costUSD, 0))
}

// IngestionJob implements engine.Metrics.
func (m *Metrics) IngestionJob(outcome string, d time.Duration) {
	m.jobs.WithLabelValues(outcome).Inc()
	m.jobDuration.WithLabelValues(outcome).Observe(d.Seconds())
}

// WatchIngestQueue registers the function read at every scrape for the
// hearth_ingestion_queue_jobs gauge (server/app counts memory.Service.JobCounts).
func (m *Metrics) WatchIngestQueue(fn func() (queued, running int)) { m.jobQueue.Store(&fn) }

func (m *Metrics) modelLabel(provider, model string) string {
	k := [2]string{provider, model}
	if _, ok := m.admitted.Load(k); ok {
		return model
	}
	m.modelsMu.Lock()
	defer m.modelsMu.Unlock()
	if m.models[k] {
		return model
	}
	if len(m.models) >= maxModels {
		return "other"
	}
	m.models[k] = true
	m.admitted.Store(k, true)
	return model
}

// outcomeCode is the code label of an outcome: ok, canceled, or the
// engine error code (INTERNAL_SERVER_ERROR for foreign errors).
func outcomeCode(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return engine.ErrorCode(err)
}

// indexCollector reads the index sizes and the job queue at scrape time.
type indexCollector struct{ m *Metrics }

var indexDescs = struct{ memories, vectors, tombstones, bytes, snapshot, keyword, queue *prometheus.Desc }{
	memories:   prometheus.NewDesc("hearth_index_memories", "Memories whose search index is loaded.", nil, nil),
	vectors:    prometheus.NewDesc("hearth_index_vectors", "Live vectors in all loaded memory indexes.", nil, nil),
	tombstones: prometheus.NewDesc("hearth_index_tombstones", "Deleted vectors awaiting compaction.", nil, nil),
	bytes:      prometheus.NewDesc("hearth_index_memory_bytes", "Estimated memory held by vector indexes.", nil, nil),
	snapshot:   prometheus.NewDesc("hearth_index_snapshot_bytes", "Size of the stored index snapshots.", nil, nil),
	keyword:    prometheus.NewDesc("hearth_index_keyword_docs", "Chunks in the keyword (BM25) indexes.", nil, nil),
	queue:      prometheus.NewDesc("hearth_ingestion_queue_jobs", "Background jobs of the memory engine waiting (queued) and being processed (running).", []string{"state"}, nil),
}

func (c *indexCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- indexDescs.memories
	ch <- indexDescs.vectors
	ch <- indexDescs.tombstones
	ch <- indexDescs.bytes
	ch <- indexDescs.snapshot
	ch <- indexDescs.keyword
	ch <- indexDescs.queue
}

func (c *indexCollector) Collect(ch chan<- prometheus.Metric) {
	var s engine.IndexSizes
	if fn := c.m.index.Load(); fn != nil {
		s = (*fn)()
	}
	g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	g(indexDescs.memories, float64(s.Memories))
	g(indexDescs.vectors, float64(s.Vectors))
	g(indexDescs.tombstones, float64(s.Tombstones))
	g(indexDescs.bytes, float64(s.Bytes))
	g(indexDescs.snapshot, float64(s.SnapshotBytes))
	g(indexDescs.keyword, float64(s.KeywordDocs))
	var queued, running int
	if fn := c.m.jobQueue.Load(); fn != nil {
		queued, running = (*fn)()
	}
	ch <- prometheus.MustNewConstMetric(indexDescs.queue, prometheus.GaugeValue, float64(queued), "queued")
	ch <- prometheus.MustNewConstMetric(indexDescs.queue, prometheus.GaugeValue, float64(running), "running")
}

// WatchDeployments registers the function read at every scrape for the
// hearth_deployment_* series (providers.Registry.Deployments): each node
// exports its own view of its deployments.
func (m *Metrics) WatchDeployments(fn func() []engine.DeploymentStatus) {
	m.reg.MustRegister(&deploymentCollector{fn: fn})
}

// deploymentCollector reads the deployments' state at scrape time.
type deploymentCollector struct {
	fn func() []engine.DeploymentStatus
}

var deploymentDescs = struct{ requests, errors, inFlight, healthy, latency *prometheus.Desc }{
	requests: prometheus.NewDesc("hearth_deployment_requests_total", "Calls sent to a deployment of a model served by several servers.", []string{"model", "deployment"}, nil),
	errors:   prometheus.NewDesc("hearth_deployment_errors_total", "Calls a deployment failed on its side (unreachable, timeout, 5xx, 429).", []string{"model", "deployment"}, nil),
	inFlight: prometheus.NewDesc("hearth_deployment_in_flight", "Calls in flight to a deployment from this node.", []string{"model", "deployment"}, nil),
	healthy:  prometheus.NewDesc("hearth_deployment_healthy", "1 when a deployment takes calls, 0 while it cools down or is probed.", []string{"model", "deployment"}, nil),
	latency:  prometheus.NewDesc("hearth_deployment_latency_seconds", "Recent average latency of a deployment (time to first token for streams).", []string{"model", "deployment"}, nil),
}

func (c *deploymentCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- deploymentDescs.requests
	ch <- deploymentDescs.errors
	ch <- deploymentDescs.inFlight
	ch <- deploymentDescs.healthy
	ch <- deploymentDescs.latency
}

func (c *deploymentCollector) Collect(ch chan<- prometheus.Metric) {
	for _, d := range c.fn() {
		healthy := 0.0
		if d.State == "healthy" {
			healthy = 1
		}
		ch <- prometheus.MustNewConstMetric(deploymentDescs.requests, prometheus.CounterValue, float64(d.Requests), d.Model, d.Name)
		ch <- prometheus.MustNewConstMetric(deploymentDescs.errors, prometheus.CounterValue, float64(d.Errors), d.Model, d.Name)
		ch <- prometheus.MustNewConstMetric(deploymentDescs.inFlight, prometheus.GaugeValue, float64(d.InFlight), d.Model, d.Name)
		ch <- prometheus.MustNewConstMetric(deploymentDescs.healthy, prometheus.GaugeValue, healthy, d.Model, d.Name)
		ch <- prometheus.MustNewConstMetric(deploymentDescs.latency, prometheus.GaugeValue, d.LatencyMs/1000, d.Model, d.Name)
	}
}
