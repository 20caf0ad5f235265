package app

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/engine/telemetry"
	"github.com/hearth-dev/hearth/providers/otlp"
	"github.com/prometheus/client_golang/prometheus"
)

// OTel configures trace export (docs/operations.md#opentelemetry). An empty
// Endpoint turns tracing off: no tracer is built and no hook records.
type OTel struct {
	// Endpoint is the collector's OTLP/HTTP base URL, e.g.
	// http://collector:4318; spans are posted to <Endpoint>/v1/traces.
	Endpoint string
	// Headers are sent with every export (authentication of a hosted
	// collector).
	Headers map[string]string
	// ServiceName is the service.name resource attribute (default "hearth").
	ServiceName string
	// Interval is the longest a finished span waits for export (0: 2 s).
	Interval time.Duration
}

// buildTracing builds the tracer when Config.OTel.Endpoint is set and
// hands it to the HTTP server. Its exporter connects through the egress
// dialer under the feature "otel". Each node traces what it serves itself
// (see telemetry.Tracer); service.instance.id tells the nodes apart.
func (a *App) buildTracing(cfg *Config) {
	o := cfg.OTel
	if o.Endpoint == "" {
		return
	}
	client := &http.Client{Transport: a.Egress.Transport("otel"), Timeout: 10 * time.Second}
	name := o.ServiceName
	if name == "" {
		name = "hearth"
	}
	host, _ := os.Hostname()
	exp := otlp.New(o.Endpoint, o.Headers, client, cfg.Version)
	a.Tracer = telemetry.New(telemetry.Config{Exporter: exp, Interval: o.Interval, Logger: cfg.Logger, Resource: []telemetry.Attr{
		telemetry.String("service.name", name), telemetry.String("service.version", cfg.Version),
		telemetry.String("service.instance.id", host+"/"+strconv.Itoa(os.Getpid())),
	}})
	a.Tracer.Open()
	a.watchTracer()
	cfg.HTTP.Tracer = a.Tracer
	cfg.Logger.Info("otel: exporting traces", "url", exp.URL(), "service", name)
	a.note("otel: " + exp.URL())
}

// watchTracer reports the tracer's span counts as
// hearth_otel_spans_total{outcome="exported|dropped|failed"}; like the
// tracer they count this node's spans only.
func (a *App) watchTracer() {
	for outcome, n := range map[string]func() int64{"exported": a.Tracer.Exported, "dropped": a.Tracer.Dropped, "failed": a.Tracer.Failed} {
		a.Metrics.Registry().MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "hearth_otel_spans_total", Help: "Spans exported, dropped (export queue full) or failed (collector unreachable after retries).",
			ConstLabels: prometheus.Labels{"outcome": outcome},
		}, func() float64 { return float64(n()) }))
	}
}

// traceProviders wraps the registry in GenAI client spans when tracing is on.
func (a *App) traceProviders(p engine.Providers) engine.Providers {
	if a.Tracer == nil {
		return p
	}
	return engine.TraceProviders(p)
}

// traceMemory traces ingestion jobs and their steps when tracing is on.
func (a *App) traceMemory(mcfg *memory.Config) {
	if a.Tracer == nil {
		return
	}
	mcfg.Tracer = a.Tracer
	mcfg.Parse = memory.TraceParse(mcfg.Parse)
	mcfg.Index = memory.TraceIndex(mcfg.Index)
}

// closeTracing exports the spans still queued, for at most 10 s.
func (a *App) closeTracing() error {
	if a.Tracer == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Tracer.Close(ctx); err != nil {
		return fmt.Errorf("otel: %w", err)
	}
	return nil
}
