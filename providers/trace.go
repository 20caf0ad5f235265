package providers

import (
	"context"
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine/telemetry"
)

// retryEvent notes a retried upstream call on the span in ctx (the
// GenAI client span engine.TraceProviders opened): which attempt failed,
// with which status (0: no answer) and how long the retry waits.
func retryEvent(ctx context.Context, attempt int, resp *http.Response, err error, wait time.Duration) {
	sp := telemetry.FromContext(ctx)
	if sp == nil {
		return
	}
	status, kind := 0, "transport"
	if err == nil && resp != nil {
		status, kind = resp.StatusCode, http.StatusText(resp.StatusCode)
	}
	sp.AddEvent("hearth.retry", telemetry.Int("hearth.retry.attempt", attempt+1),
		telemetry.Int("http.response.status_code", status), telemetry.String("error.type", kind),
		telemetry.Float("hearth.retry.wait_s", wait.Seconds()))
}

// propagate names the span in ctx as the parent of an outgoing call with
// a W3C traceparent header (https://www.w3.org/TR/trace-context/), so an
// upstream that is itself traced (a local model server, a gateway) joins
// the trace under the GenAI client span. With tracing off there is no span
// and nothing is sent.
func propagate(ctx context.Context, h http.Header) {
	if sp := telemetry.FromContext(ctx); sp != nil {
		h.Set("traceparent", sp.Traceparent())
	}
}
