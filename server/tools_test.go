package server_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/server/servertest"
)

type toolFakes struct{ exa, spider, firecrawl *fake.Server }

func startTools(t *testing.T) (*servertest.Server, toolFakes) {
	t.Helper()
	f := toolFakes{fake.NewExa(), fake.NewSpider(), fake.NewFirecrawl()}
	t.Cleanup(f.exa.Close)
	t.Cleanup(f.spider.Close)
	t.Cleanup(f.firecrawl.Close)
	ts := servertest.Start(t, servertest.WithTools(servertest.Tools{
		ExaURL: f.exa.BaseURL(), SpiderURL: f.spider.BaseURL(), FirecrawlURL: f.firecrawl.BaseURL()}))
	return ts, f
}

type toolResult struct {
	URL     string `json:"url"`
	Content string `json:"content"`
}

func TestWebSearchMapsToExa(t *testing.T) {
	ts, f := startTools(t)
	r := ts.Do("POST", "/v1/tools/web-search", servertest.AdminKey,
		map[string]any{"query": "hearth llm server", "service": "exa", "totalResults": 3, "domains": []string{"go.dev", "example.org"}},
		"lb-web-search-key", "exa-key")
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	got := f.exa.LastRequest()
	want := map[string]any{"query": "hearth llm server", "numResults": 3.0, "includeDomains": []any{"go.dev", "example.org"},
		"contents": map[string]any{"text": map[string]any{"maxCharacters": 10000.0}}}
	if got.Path != "/search" || got.Header.Get("x-api-key") != "exa-key" || !reflect.DeepEqual(got.JSON(), want) {
		t.Fatalf("exa got %s %v %v", got.Path, got.Header.Get("x-api-key"), got.JSON())
	}
	var res []toolResult
	r.JSON(t, &res)
	wantRes := []toolResult{
		{"https://go.dev/result-1", "Result 1 for hearth llm server."},
		{"https://example.org/result-2", "Result 2 for hearth llm server."},
		{"https://go.dev/result-3", "Result 3 for hearth llm server."},
	}
	if !reflect.DeepEqual(res, wantRes) {
		t.Fatalf("results %+v", res)
	}
	// Defaults: 10 results, no domains; the key may come as apiKey in the body.
	r = ts.Do("POST", "/v1/tools/web-search", servertest.AdminKey, map[string]any{"query": "q", "service": "EXA", "apiKey": "body-key"})
	r.JSON(t, &res)
	if r.Status != 200 || len(res) != 10 || f.exa.LastRequest().Header.Get("x-api-key") != "body-key" {
		t.Fatalf("defaults: %d %d results", r.Status, len(res))
	}
	if _, ok := f.exa.LastRequest().JSON()["includeDomains"]; ok {
		t.Fatal("includeDomains sent without domains")
	}
}

func TestWebSearchValidation(t *testing.T) {
	ts, f := startTools(t)
	cases := []struct {
		body   map[string]any
		header bool
		field  string
		msg    string
	}{
		{map[string]any{"query": "q", "service": "exa"}, false, "LB-WEB-SEARCH-KEY", "LB-WEB-SEARCH-KEY: header is required: send your exa API key in it (or as apiKey in the body)"},
		{map[string]any{"query": "q"}, true, "service", "service: is required (allowed: exa)"},
		{map[string]any{"query": "q", "service": "google"}, true, "service", `service: \"google\" is not supported (allowed: exa)`},
		{map[string]any{"service": "exa"}, true, "query", "query: is required"},
		{map[string]any{"query": "   ", "service": "exa"}, true, "query", "query: is required"},
		{map[string]any{"query": "q", "service": "exa", "totalResults": 0}, true, "totalResults", "totalResults: must be from 1 to 100"},
		{map[string]any{"query": "q", "service": "exa", "totalResults": 101}, true, "totalResults", "totalResults: must be from 1 to 100"},
		{map[string]any{"query": "q", "service": "exa", "totalResults": "ten"}, true, "totalResults", "totalResults"},
		{map[string]any{"query": "q", "service": "exa", "domains": "go.dev"}, true, "domains", "domains"},
		{map[string]any{"query": "q", "service": "exa", "domains": []string{"go dev"}}, true, "domains", `domains: \"go dev\" is not a domain`},
	}
	for _, tc := range cases {
		var hdr []string
		if tc.header {
			hdr = []string{"LB-WEB-SEARCH-KEY", "k"}
		}
		r := ts.Do("POST", "/v1/tools/web-search", servertest.AdminKey, tc.body, hdr...)
		var e struct{ Error struct{ Code, Field string } }
		r.JSON(t, &e)
		if r.Status != 400 || e.Error.Field != tc.field || !strings.Contains(string(r.Body), tc.msg) {
			t.Errorf("%v: %d %s (want field %s, %q)", tc.body, r.Status, r.Body, tc.field, tc.msg)
		}
	}
	if f.exa.Count() != 0 {
		t.Fatalf("exa called %d times for invalid requests", f.exa.Count())
	}
	if r := ts.Do("POST", "/v1/tools/web-search", "", map[string]any{"query": "q", "service": "exa"}, "LB-WEB-SEARCH-KEY", "k"); r.Status != 401 {
		t.Fatalf("no Hearth key: %d", r.Status)
	}
}

func TestWebSearchUpstreamErrors(t *testing.T) {
	ts, f := startTools(t)
	body := map[string]any{"query": "q", "service": "exa"}
	cases := []struct {
		reply  fake.Reply
		status int
		msg    string
	}{
		{fake.Reply{Status: 401, Message: "Invalid API key"}, 400, "exa rejected the web search key (LB-WEB-SEARCH-KEY)"},
		{fake.Reply{Status: 429, RetryAfter: "30"}, 429, "RATE_LIMITED"},
		{fake.Reply{Status: 400, Message: "numResults too large"}, 400, "exa: numResults too large"},
		{fake.Reply{Status: 503}, 502, "exa failed (HTTP 503)"},
	}
	for _, tc := range cases {
		f.exa.Reset()
		f.exa.SetDefault(tc.reply)
		r := ts.Do("POST", "/v1/tools/web-search", servertest.AdminKey, body, "LB-WEB-SEARCH-KEY", "k")
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.msg) {
			t.Errorf("%+v: %d %s", tc.reply, r.Status, r.Body)
		}
	}
}

func TestCrawlSpider(t *testing.T) {
	ts, f := startTools(t)
	r := ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey,
		map[string]any{"url": []string{"https://a.example/docs", "https://b.example/?q=1,2"}, "maxPages": 2}, "LB-CRAWL-KEY", "spider-key")
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	got := f.spider.LastRequest()
	want := map[string]any{"url": "https://a.example/docs,https://b.example/?q=1%2C2", "limit": 2.0, "return_format": "markdown"}
	if got.Path != "/crawl" || got.Header.Get("Authorization") != "Bearer spider-key" || !reflect.DeepEqual(got.JSON(), want) {
		t.Fatalf("spider got %s %v %v", got.Path, got.Header, got.JSON())
	}
	var res []toolResult
	r.JSON(t, &res)
	if len(res) != 4 || res[0].URL != "https://a.example/docs" || res[1].URL != "https://a.example/docs/page-2" ||
		!strings.HasPrefix(res[0].Content, "# Page 1 of https://a.example/docs") {
		t.Fatalf("results %+v", res)
	}
	// Pages Spider could not crawl are left out; when none could be, the error says why.
	r = ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey, map[string]any{"url": []string{"https://fail.example/", "https://ok.example/"}}, "LB-CRAWL-KEY", "k")
	r.JSON(t, &res)
	if r.Status != 200 || len(res) != 1 || res[0].URL != "https://ok.example/" {
		t.Fatalf("partial: %d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey, map[string]any{"url": []string{"https://fail.example/"}, "service": "spider"}, "LB-CRAWL-KEY", "k")
	if r.Status != 502 || !strings.Contains(string(r.Body), "spider could not crawl any page: https://fail.example/: net::ERR_NAME_NOT_RESOLVED") {
		t.Fatalf("all failed: %d %s", r.Status, r.Body)
	}
	f.spider.SetDefault(fake.Reply{Status: 401})
	r = ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey, map[string]any{"url": []string{"https://a.example/"}}, "LB-CRAWL-KEY", "bad")
	if r.Status != 400 || !strings.Contains(string(r.Body), "spider rejected the crawl key (LB-CRAWL-KEY)") {
		t.Fatalf("bad key: %d %s", r.Status, r.Body)
	}
	f.spider.SetDefault(fake.Reply{Status: 402, Message: "Payment required"})
	r = ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey, map[string]any{"url": []string{"https://a.example/"}}, "LB-CRAWL-KEY", "k")
	if r.Status != 400 || !strings.Contains(string(r.Body), "no credits left") {
		t.Fatalf("no credits: %d %s", r.Status, r.Body)
	}
}

func TestCrawlFirecrawl(t *testing.T) {
	ts, f := startTools(t)
	// One page: /scrape.
	r := ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey,
		map[string]any{"url": []string{"https://a.example/"}, "service": "firecrawl"}, "LB-CRAWL-KEY", "fc-key")
	var res []toolResult
	r.JSON(t, &res)
	got := f.firecrawl.LastRequest()
	want := map[string]any{"url": "https://a.example/", "formats": []any{"markdown"}, "onlyMainContent": true}
	if r.Status != 200 || got.Path != "/v2/scrape" || got.Header.Get("Authorization") != "Bearer fc-key" || !reflect.DeepEqual(got.JSON(), want) {
		t.Fatalf("scrape: %d %s; upstream %s %v", r.Status, r.Body, got.Path, got.JSON())
	}
	if len(res) != 1 || res[0].URL != "https://a.example/" || !strings.HasPrefix(res[0].Content, "# Page 1 of https://a.example/") {
		t.Fatalf("scrape results %+v", res)
	}

	// Several pages: /crawl, polls until completed, follows "next".
	f.firecrawl.Reset()
	r = ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey,
		map[string]any{"url": []string{"https://docs.example/"}, "service": "firecrawl", "maxPages": 5}, "LB-CRAWL-KEY", "fc-key")
	r.JSON(t, &res)
	if r.Status != 200 || len(res) != 5 || res[4].URL != "https://docs.example/page-5" {
		t.Fatalf("crawl: %d %s", r.Status, r.Body)
	}
	reqs := f.firecrawl.Requests()
	var paths []string
	for _, q := range reqs {
		paths = append(paths, q.Method+" "+q.Path+"?"+q.Query)
	}
	if len(reqs) != 5 || !reflect.DeepEqual(reqs[0].JSON(), map[string]any{"url": "https://docs.example/", "limit": 5.0,
		"scrapeOptions": map[string]any{"formats": []any{"markdown"}, "onlyMainContent": true}}) ||
		paths[1] != "GET /v2/crawl/00000000-0000-4000-8000-000000000001?" || paths[4] != "GET /v2/crawl/00000000-0000-4000-8000-000000000001?skip=4" {
		t.Fatalf("calls %v", paths)
	}

	// A failed crawl job is an upstream error.
	r = ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey,
		map[string]any{"url": []string{"https://fail.example/"}, "service": "firecrawl", "maxPages": 3}, "LB-CRAWL-KEY", "k")
	if r.Status != 502 || !strings.Contains(string(r.Body), "firecrawl crawl of https://fail.example/ failed") {
		t.Fatalf("failed job: %d %s", r.Status, r.Body)
	}
	f.firecrawl.SetDefault(fake.Reply{Status: 401})
	r = ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey, map[string]any{"url": []string{"https://a.example/"}, "service": "firecrawl"}, "LB-CRAWL-KEY", "bad")
	if r.Status != 400 || !strings.Contains(string(r.Body), "firecrawl rejected the crawl key (LB-CRAWL-KEY)") {
		t.Fatalf("bad key: %d %s", r.Status, r.Body)
	}
}

func TestCrawlValidation(t *testing.T) {
	ts, f := startTools(t)
	many := make([]string, 101)
	for i := range many {
		many[i] = "https://a.example/"
	}
	cases := []struct {
		body   map[string]any
		header bool
		field  string
		msg    string
	}{
		{map[string]any{"url": []string{"https://a.example/"}}, false, "LB-CRAWL-KEY",
			`LB-CRAWL-KEY: header is required for service spider: send your spider API key in it (or as apiKey in the body), or use service \"hearth\"`},
		{map[string]any{"url": []string{"https://a.example/"}, "service": "firecrawl"}, false, "LB-CRAWL-KEY", "required for service firecrawl"},
		{map[string]any{"url": []string{"https://a.example/"}, "service": "scrapy"}, true, "service", `service: \"scrapy\" is not supported (allowed: firecrawl, hearth, spider)`},
		{map[string]any{}, true, "url", "url: is required: an array of 1 to 100 absolute http(s) URLs"},
		{map[string]any{"url": []string{}}, true, "url", "url: is required"},
		{map[string]any{"url": "https://a.example/"}, true, "url", "url"},
		{map[string]any{"url": many}, true, "url", "url: must have at most 100 entries, got 101"},
		{map[string]any{"url": []string{"https://a.example/", "/relative"}}, true, "url", `url: entry 1 (\"/relative\") is not an absolute http(s) URL`},
		{map[string]any{"url": []string{"file:///etc/passwd"}}, true, "url", "is not an absolute http(s) URL"},
		{map[string]any{"url": []string{"https://user:pw@a.example/"}}, true, "url", "URLs with credentials are not allowed"},
		{map[string]any{"url": []string{"https://a.example/"}, "maxPages": 0}, true, "maxPages", "maxPages: must be from 1 to 50"},
		{map[string]any{"url": []string{"https://a.example/"}, "maxPages": 51}, true, "maxPages", "maxPages: must be from 1 to 50"},
	}
	for _, tc := range cases {
		var hdr []string
		if tc.header {
			hdr = []string{"LB-CRAWL-KEY", "k"}
		}
		r := ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey, tc.body, hdr...)
		var e struct{ Error struct{ Code, Field string } }
		r.JSON(t, &e)
		if r.Status != 400 || e.Error.Field != tc.field || !strings.Contains(string(r.Body), tc.msg) {
			t.Errorf("%v: %d %s (want field %s, %q)", tc.body, r.Status, r.Body, tc.field, tc.msg)
		}
	}
	if f.spider.Count()+f.firecrawl.Count() != 0 {
		t.Fatal("a crawl service was called for an invalid request")
	}
}

func TestCrawlBuiltin(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nDisallow: /admin\n"))
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><body><main><h1>Intranet</h1><p>Hello.</p><a href="/docs">Docs</a> <a href="/admin">Admin</a></main></body></html>`))
		case "/docs":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><body><p>Docs page.</p></body></html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	body := map[string]any{"url": []string{site.URL + "/"}, "maxPages": 5, "service": "hearth"}

	// servertest allows loopback, as HEARTH_OUTBOUND_ALLOW would an intranet.
	ts := servertest.Start(t)
	r := ts.Do("POST", "/v1/tools/crawl", servertest.AdminKey, body)
	var res []toolResult
	r.JSON(t, &res)
	want := []toolResult{
		{site.URL + "/", "# Intranet\n\nHello.\n\n[Docs](" + site.URL + "/docs) [Admin](" + site.URL + "/admin)"},
		{site.URL + "/docs", "Docs page."},
	}
	if r.Status != 200 || !reflect.DeepEqual(res, want) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}

	// The default policy refuses private and loopback addresses.
	strict := servertest.Start(t, servertest.WithOutbound(netguard.Policy{}))
	r = strict.Do("POST", "/v1/tools/crawl", servertest.AdminKey, body)
	if r.Status != 403 || !strings.Contains(string(r.Body), "not a public address (the operator can allow private destinations with HEARTH_OUTBOUND_ALLOW_PRIVATE") {
		t.Fatalf("private refusal: %d %s", r.Status, r.Body)
	}
	// Opting in to one prefix lets it through.
	allow := servertest.Start(t, servertest.WithOutbound(netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}))
	if r := allow.Do("POST", "/v1/tools/crawl", servertest.AdminKey, body); r.Status != 200 {
		t.Fatalf("allowed prefix: %d %s", r.Status, r.Body)
	}
}
