package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

const metricsToken = "metrics-token-0123456789"

func TestMetricsAccess(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.MetricsToken = metricsToken }))
	userKey := ts.UserWithKey("alice")
	orgKey := ts.OrgWithKey("acme", "alice")
	cases := []struct {
		name, key string
		status    int
	}{
		{"no key", "", 401},
		{"unknown key", "hth_user_nope", 401},
		{"wrong token", "metrics-token-wrong000000", 401},
		{"non-admin user", userKey, 403},
		{"org key", orgKey, 403},
		{"admin user", servertest.AdminKey, 200},
		{"metrics token", metricsToken, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.Do("GET", "/metrics", tc.key, nil)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Body)
			}
			if tc.status == 200 && !strings.Contains(string(r.Body), "hearth_build_info") {
				t.Fatalf("no metrics in %s", r.Body)
			}
		})
	}
}

func TestMetricsOff(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.MetricsOff = true }))
	if r := ts.Do("GET", "/metrics", servertest.AdminKey, nil); r.Status != 404 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
}

func TestMetricsCountRequestsByRouteTemplate(t *testing.T) {
	ts := servertest.Start(t)
	ts.Do("GET", "/health", "", nil)
	ts.Do("GET", "/health", "", nil)
	ts.Do("GET", "/v1/keys", "", nil)
	ts.Do("GET", "/v1/no-such-route/abc123", "", nil)
	ts.Do("DELETE", "/v1/keys/key_"+strings.Repeat("x", 10), servertest.AdminKey, nil)
	body := string(ts.Do("GET", "/metrics", servertest.AdminKey, nil).Body)
	for _, want := range []string{
		`hearth_http_requests_total{method="GET",route="/health",status="200"} 2`,
		`hearth_http_requests_total{method="GET",route="/v1/keys",status="401"} 1`,
		`hearth_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`hearth_http_requests_total{method="DELETE",route="/v1/keys/:id",status="404"} 1`,
		`hearth_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 2`,
		// the scrape itself is in flight while it is written
		`hearth_http_requests_in_flight 1`,
		`hearth_ingestion_queue_jobs{state="queued"} 0`,
		`hearth_index_vectors 0`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(body, "no-such-route") || strings.Contains(body, "xxxxxxxxxx") {
		t.Error("raw paths leaked into metric labels")
	}
}

func TestMetricsSeparateListener(t *testing.T) {
	ts := servertest.Start(t)
	srv, err := server.New(server.Config{Addr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", MetricsOff: true, PublicURL: "http://x"},
		ts.App.Deps)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())
	body := httpGet(t, srv.MetricsURL()+"/metrics", 200)
	if !strings.Contains(body, "hearth_http_requests_in_flight") {
		t.Fatalf("metrics body %s", body)
	}
	// The main listener does not serve them when HEARTH_METRICS=off.
	httpGet(t, srv.URL()+"/metrics", 404)
}

// httpGet fetches url and checks the status, returning the body.
func httpGet(t *testing.T, url string, status int) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("GET %s: status %d, want %d: %s", url, resp.StatusCode, status, b)
	}
	return string(b)
}

func TestSecurityHeadersOnEveryAnswer(t *testing.T) {
	ts := servertest.Start(t)
	for _, c := range []struct{ method, path, key string }{
		{"GET", "/health", ""}, {"GET", "/v1/nope", ""}, {"GET", "/v1/keys", ""}, {"POST", "/v1/keys", servertest.AdminKey},
		{"GET", "/metrics", servertest.AdminKey}, {"GET", "/openapi.json", ""}, {"OPTIONS", "/v1/pipes", ""},
	} {
		r := ts.Do(c.method, c.path, c.key, nil, "Origin", "http://app.example")
		if r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Content-Security-Policy") != "default-src 'none'; frame-ancestors 'none'" {
			t.Errorf("%s %s: %d %v", c.method, c.path, r.Status, r.Header)
		}
	}
}
