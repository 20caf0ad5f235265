package crawl

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestFirecrawlVersions: v2 is the default; a base URL ending in /v1
// keeps the v1 API, and one without a version segment gets /v2. Each
// version's fake refuses fields it does not define, so the requests are
// checked against the right schema.
func TestFirecrawlVersions(t *testing.T) {
	if base, v := firecrawlBase(""); base != "https://api.firecrawl.dev/v2" || v != "v2" {
		t.Errorf("default %s %s", base, v)
	}
	v2, v1 := fake.NewFirecrawl(), fake.NewFirecrawlV1()
	defer v2.Close()
	defer v1.Close()
	cases := []struct {
		base    string
		f       *fake.Server
		version string
	}{
		{v2.BaseURL(), v2, "v2"},
		{v2.URL, v2, "v2"},
		{v2.URL + "/", v2, "v2"},
		{v1.BaseURL(), v1, "v1"},
	}
	for _, c := range cases {
		c.f.Reset()
		fc := NewFirecrawl(c.base, providers.Config{Retry: providers.RetryPolicy{MaxAttempts: 1}, Timeout: 5 * time.Second})
		fc.PollInterval = time.Millisecond
		if fc.Version() != c.version {
			t.Errorf("%s: version %s, want %s", c.base, fc.Version(), c.version)
		}
		res, err := fc.Crawl(context.Background(), &engine.CrawlJob{URLs: []string{"https://a.example/"}, MaxPages: 1, APIKey: "k"})
		if err != nil || len(res) != 1 || !strings.HasPrefix(res[0].Content, "# Page 1") {
			t.Fatalf("%s scrape: %v %+v", c.base, err, res)
		}
		if p := c.f.LastRequest().Path; p != "/"+c.version+"/scrape" {
			t.Errorf("%s: scraped at %s", c.base, p)
		}
		res, err = fc.Crawl(context.Background(), &engine.CrawlJob{URLs: []string{"https://docs.example/"}, MaxPages: 3, APIKey: "k"})
		if err != nil || len(res) != 3 {
			t.Fatalf("%s crawl: %v %+v", c.base, err, res)
		}
	}
}

// TestFirecrawlFakeSchemas: the fakes refuse the other version's fields.
func TestFirecrawlFakeSchemas(t *testing.T) {
	v2, v1 := fake.NewFirecrawl(), fake.NewFirecrawlV1()
	defer v2.Close()
	defer v1.Close()
	for _, c := range []struct {
		f    *fake.Server
		body string
	}{
		{v2, `{"url":"https://a.example/","ignoreSitemap":true}`},
		{v2, `{"url":"https://a.example/","scrapeOptions":{"formats":["markdown"],"jsonOptions":{}}}`},
		{v1, `{"url":"https://a.example/","sitemap":"skip"}`},
	} {
		req, _ := http.NewRequest("POST", c.f.BaseURL()+"/crawl", strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer k")
		resp, err := c.f.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("%s %s: %d, want 400", c.f.BaseURL(), c.body, resp.StatusCode)
		}
	}
}
