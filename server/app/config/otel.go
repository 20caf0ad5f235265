package config

import (
	"net/url"
	"strings"

	"github.com/hearth-dev/hearth/providers/otlp"
	"github.com/hearth-dev/hearth/server/app"
)

// OTelSettings are the trace export settings (docs/operations.md#opentelemetry).
// Config embeds them, so their JSON keys sit at the top level of the
// config file.
type OTelSettings struct {
	// OTelEndpoint is the collector's OTLP/HTTP base URL; empty: off.
	OTelEndpoint string `json:"otel_endpoint"`
	// OTelHeaders are "key=value" pairs sent with every export. Like the
	// admin key it has no flag, so it never shows in a process list.
	OTelHeaders string `json:"otel_headers"`
	// OTelServiceName is the service.name of the exported spans.
	OTelServiceName string `json:"otel_service_name"`
	// otelHeaders is OTelHeaders parsed, set by Validate.
	otelHeaders map[string]string
}

// otelEndpoint allows an OTLP/HTTP collector base URL, or nothing.
var otelEndpoint = textRule("an http:// or https:// URL such as http://collector:4318, without user info or query", "grpc://c:4317", func(s string) bool {
	if s = strings.TrimSpace(s); s == "" {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.RawQuery == "" && u.User == nil
})

// otelHeaders allows the OTEL_EXPORTER_OTLP_HEADERS format.
var otelHeaders = textRule("comma-separated key=value pairs (percent-encode commas in values)", "novalue", func(s string) bool {
	_, err := otlp.ParseHeaders(s)
	return err == nil
})

// otel is the application's trace export config (call after Validate).
func (c *Config) otel() app.OTel {
	return app.OTel{Endpoint: strings.TrimSpace(c.OTelEndpoint), Headers: c.otelHeaders, ServiceName: strings.TrimSpace(c.OTelServiceName)}
}
