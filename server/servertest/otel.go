package servertest

import (
	"context"
	"time"

	"github.com/hearth-dev/hearth/server/app"
)

// WithOTel exports traces to the OTLP/HTTP collector at endpoint
// (HEARTH_OTEL_ENDPOINT, HEARTH_OTEL_HEADERS), typically an
// otlptest.Receiver on loopback.
func WithOTel(endpoint string, headers map[string]string) Option {
	return func(c *app.Config) {
		c.OTel = app.OTel{Endpoint: endpoint, Headers: headers, ServiceName: "hearth-test", Interval: time.Hour}
	}
}

// FlushTraces exports every span finished so far (nothing without
// WithOTel).
func (s *Server) FlushTraces() {
	if s.App.Tracer == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.App.Tracer.Flush(ctx)
}
