package config

import (
	"strings"
	"testing"
)

func TestOTelConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		env     map[string]string
		want    string
		mustNot string
	}{
		"not a URL":       {map[string]string{"HEARTH_OTEL_ENDPOINT": "collector:4318"}, "HEARTH_OTEL_ENDPOINT", ""},
		"grpc scheme":     {map[string]string{"HEARTH_OTEL_ENDPOINT": "grpc://collector:4317"}, "HEARTH_OTEL_ENDPOINT", ""},
		"user info":       {map[string]string{"HEARTH_OTEL_ENDPOINT": "http://u:secretpw@collector:4318"}, "without user info", "secretpw"},
		"header not pair": {map[string]string{"HEARTH_OTEL_ENDPOINT": "http://c:4318", "HEARTH_OTEL_HEADERS": "Bearer secrettoken"}, "HEARTH_OTEL_HEADERS", "secrettoken"},
		"headers, no URL": {map[string]string{"HEARTH_OTEL_HEADERS": "Authorization=Bearer%20secrettoken"}, "HEARTH_OTEL_ENDPOINT is not", "secrettoken"},
	} {
		cfg, _, err := Load("serve", nil, envMap(tc.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", name, err, tc.want)
		}
		if tc.mustNot != "" && err != nil && strings.Contains(err.Error(), tc.mustNot) {
			t.Errorf("%s: the error echoes the header value: %v", name, err)
		}
	}
	cfg, _, err := Load("serve", []string{"-otel-service-name", "hearth-eu"}, envMap(map[string]string{
		"HEARTH_OTEL_ENDPOINT": " https://otlp.example.com/ ", "HEARTH_OTEL_HEADERS": "Authorization=Bearer%20abc,x-scope=team-a"}))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.App(make([]byte, 32), nil, "test").OTel
	if o.Endpoint != "https://otlp.example.com/" || o.ServiceName != "hearth-eu" || o.Headers["Authorization"] != "Bearer abc" || o.Headers["x-scope"] != "team-a" {
		t.Fatalf("otel settings: %+v", o)
	}
	cfg, _, _ = Load("serve", nil, envMap(nil))
	if err := cfg.Validate(); err != nil || cfg.App(make([]byte, 32), nil, "test").OTel.Endpoint != "" {
		t.Fatalf("default: %v, endpoint %q: want tracing off", err, cfg.OTelEndpoint)
	}
}
