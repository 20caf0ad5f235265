package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
)

// sdkToolFakes starts the upstreams testdata/sdk/tools.test.mjs expects:
// fake Together images, Exa, Spider and Firecrawl, and a local HTML site
// for the built-in crawler. It returns the server's extra environment
// (base URLs, and the outbound opt-in that lets the crawler reach the
// loopback site) and the node test's (HEARTH_SITE_URL).
func sdkToolFakes(t *testing.T) (serverEnv, nodeEnv []string) {
	t.Helper()
	together, exa, spider, firecrawl := fake.NewTogetherImages(), fake.NewExa(), fake.NewSpider(), fake.NewFirecrawl()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			w.Write([]byte(`<html><body><main><h1>Intranet</h1><p>Welcome.</p><a href="/docs">Docs</a></main></body></html>`))
		case "/docs":
			w.Write([]byte(`<html><body><p>The docs.</p></body></html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	for _, s := range []*fake.Server{together, exa, spider, firecrawl} {
		t.Cleanup(s.Close)
	}
	t.Cleanup(site.Close)
	serverEnv = []string{
		"HEARTH_TOGETHER_BASE_URL=" + together.BaseURL(),
		"HEARTH_EXA_BASE_URL=" + exa.BaseURL(),
		"HEARTH_SPIDER_BASE_URL=" + spider.BaseURL(),
		"HEARTH_FIRECRAWL_BASE_URL=" + firecrawl.BaseURL(),
		"HEARTH_OUTBOUND_ALLOW=127.0.0.0/8",
	}
	return serverEnv, []string{"HEARTH_SITE_URL=" + site.URL}
}
