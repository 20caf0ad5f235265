// Package otlp exports Hearth's spans to an OpenTelemetry collector over
// OTLP/HTTP with the JSON encoding
// (https://opentelemetry.io/docs/specs/otlp/#otlphttp): each batch is one
// POST of an ExportTraceServiceRequest to <endpoint>/v1/traces.
//
// Why not the official OpenTelemetry Go SDK (go.opentelemetry.io/otel/sdk
// with exporters/otlp/otlptrace/otlptracehttp, v1.47.0 on the module proxy
// when this was written): its go.mod requires google.golang.org/grpc,
// grpc-gateway, the genproto packages and go.opentelemetry.io/proto/otlp,
// and would move the otel modules Hearth already has indirectly (v1.41,
// through the MCP SDK) to its version; it also keeps global provider and
// propagator state. Hearth needs a handful of spans, one propagation format
// (W3C traceparent) and an outbound client built on the egress dialer.
// This package is the small part of the protocol Hearth uses: JSON
// encoding, retries of 429/502/503/504 honouring Retry-After (the spec's
// "retryable response codes"), and a deadline per batch. Batching, the
// bounded queue and the flush on shutdown are engine/telemetry's Tracer.
package otlp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine/telemetry"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// Exporter posts span batches to one collector.
type Exporter struct {
	url     string
	headers map[string]string
	client  *http.Client
	scope   string
	version string
	// MaxAttempts bounds the posts of one batch (default 5).
	MaxAttempts int
	// sleep waits between attempts (tests make it instant).
	sleep func(context.Context, time.Duration) error
}

// New returns an exporter for the collector at endpoint (for example
// http://collector:4318; "/v1/traces" is appended unless the endpoint
// already ends with it), sending headers with every post. client must be
// built on the egress dialer (netguard.Egress.Transport).
func New(endpoint string, headers map[string]string, client *http.Client, version string) *Exporter {
	u := strings.TrimRight(endpoint, "/")
	if !strings.HasSuffix(u, "/v1/traces") {
		u += "/v1/traces"
	}
	return &Exporter{url: u, headers: headers, client: client, scope: "github.com/hearth-dev/hearth", version: version,
		MaxAttempts: 5, sleep: providers.SleepCtx}
}

// URL is where batches are posted.
func (e *Exporter) URL() string { return e.url }

// Export posts one batch, retrying retryable answers until ctx ends.
func (e *Exporter) Export(ctx context.Context, resource []telemetry.Attr, spans []*telemetry.SpanData) error {
	body, err := Encode(resource, e.scope, e.version, spans)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		wait, err := e.post(ctx, body)
		if err == nil {
			return nil
		}
		if wait < 0 || attempt >= e.MaxAttempts {
			return err
		}
		if wait == 0 {
			wait = time.Duration(1<<min(attempt-1, 5)) * 500 * time.Millisecond
		}
		if serr := e.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (gave up: %v)", err, serr)
		}
	}
}

// post sends body once. A retryable failure returns the wait the
// collector asked for (0: back off); a final one a negative wait.
func (e *Exporter) post(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		// The egress policy's refusal (HEARTH_OUTBOUND=allowlist without the
		// collector) would refuse every retry too.
		if ctx.Err() != nil || errors.Is(err, netguard.ErrRefused) {
			return -1, fmt.Errorf("otlp: post %s: %w", e.url, err)
		}
		return 0, fmt.Errorf("otlp: post %s: %w", e.url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return 0, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusBadGateway ||
		resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
		return providers.RetryAfter(resp.Header, time.Now()), fmt.Errorf("otlp: collector answered %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
	}
	return -1, fmt.Errorf("otlp: collector answered %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
}

// ParseHeaders reads "key=value,key2=value2" (the format of
// OTEL_EXPORTER_OTLP_HEADERS; values may be percent-encoded).
func ParseHeaders(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", strings.TrimSpace(part))
		}
		if dv, err := unescape(strings.TrimSpace(v)); err == nil {
			v = dv
		} else {
			return nil, fmt.Errorf("header %s: %v", k, err)
		}
		out[k] = v
	}
	return out, nil
}
