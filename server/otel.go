package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/hearth-dev/hearth/engine/telemetry"
	"github.com/labstack/echo/v4"
)

// traced serves a request inside a server span when tracing is on
// (Config.Tracer; docs/operations.md#opentelemetry). The span continues the caller's
// trace when the request carries a valid W3C traceparent header, and its
// trace id is the lb-trace-id response header. The span is named after the
// route template ("POST /v1/pipes/run", never the raw path) and carries
// the HTTP semantic-convention attributes
// (https://opentelemetry.io/docs/specs/semconv/http/http-spans/); a 5xx
// answer marks it failed.
func (s *Server) traced(c echo.Context, next echo.HandlerFunc) error {
	r := c.Request()
	var remote *telemetry.Remote
	if rp, ok := telemetry.ParseTraceparent(r.Header.Get("traceparent")); ok {
		remote = &rp
	}
	route := c.Path()
	name := r.Method
	if route != "" && route != "/*" {
		name += " " + route
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	ctx, sp := s.cfg.Tracer.Root(r.Context(), name, telemetry.KindServer, remote,
		telemetry.String("http.request.method", r.Method), telemetry.String("http.route", route),
		telemetry.String("url.path", r.URL.Path), telemetry.String("url.scheme", scheme),
		telemetry.String("user_agent.original", r.UserAgent()),
		telemetry.String("hearth.request_id", headerValue(c.Response().Header(), HeaderRequestID)))
	defer sp.End()
	setHeader(c.Response().Header(), HeaderTraceID, sp.TraceID().String())
	c.SetRequest(r.WithContext(ctx))
	err := next(c)
	status := c.Response().Status
	if err != nil {
		// The access log below this layer answers errors; one that got
		// past it is answered by echo's error handler.
		_, status = toEngineError(err)
	}
	sp.SetAttrs(telemetry.Int("http.response.status_code", status))
	if status >= 500 {
		// The status message is the status text: the span never carries
		// more of an internal error than the client saw.
		sp.SetAttrs(telemetry.String("error.type", strconv.Itoa(status)))
		sp.Fail(errors.New(http.StatusText(status)))
	}
	return err
}
