package main

import (
	"fmt"
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
}

func (c *Config) otelVars() []configVar {
	o := &c.OTelSettings
	return []configVar{
		{env: "HEARTH_OTEL_ENDPOINT", flag: "otel-endpoint", usage: "OTLP/HTTP collector base URL (e.g. http://collector:4318): export traces to <url>/v1/traces (unset: tracing off)", str: &o.OTelEndpoint},
		{env: "HEARTH_OTEL_HEADERS", str: &o.OTelHeaders},
		{env: "HEARTH_OTEL_SERVICE_NAME", flag: "otel-service-name", usage: "service.name of the exported spans", str: &o.OTelServiceName},
	}
}

// validateOTel checks the endpoint (an http(s) URL without query) and the
// headers (key=value pairs, comma-separated). Header values are never
// echoed back: they usually hold a collector's credentials.
func (c *Config) validateOTel() []error {
	var errs []error
	o := &c.OTelSettings
	o.OTelEndpoint = strings.TrimSpace(o.OTelEndpoint)
	o.OTelServiceName = strings.TrimSpace(o.OTelServiceName)
	if o.OTelEndpoint != "" {
		u, err := url.Parse(o.OTelEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil {
			shown := "the value"
			if err == nil {
				shown = fmt.Sprintf("%q", u.Redacted())
			}
			errs = append(errs, fmt.Errorf("HEARTH_OTEL_ENDPOINT: %s must be an http:// or https:// URL such as http://collector:4318, without user info or query", shown))
		}
	}
	if _, err := otlp.ParseHeaders(o.OTelHeaders); err != nil {
		errs = append(errs, fmt.Errorf("HEARTH_OTEL_HEADERS: must be comma-separated key=value pairs (percent-encode commas in values)"))
	}
	if o.OTelHeaders != "" && o.OTelEndpoint == "" {
		errs = append(errs, fmt.Errorf("HEARTH_OTEL_HEADERS is set but HEARTH_OTEL_ENDPOINT is not: set the collector URL"))
	}
	return errs
}

// otel is the application's trace export config (call after Validate).
func (c *Config) otel() app.OTel {
	h, _ := otlp.ParseHeaders(c.OTelHeaders)
	return app.OTel{Endpoint: c.OTelEndpoint, Headers: h, ServiceName: c.OTelServiceName}
}
