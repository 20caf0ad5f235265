package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestTestServersRecordToolMetrics: a test server is wired like hearth
// serve, so image generation, web search and crawls record upstream
// metrics there too.
func TestTestServersRecordToolMetrics(t *testing.T) {
	img, exa, spider := fake.NewOpenAIImages(), fake.NewExa(), fake.NewSpider()
	for _, f := range []*fake.Server{img, exa, spider} {
		t.Cleanup(f.Close)
	}
	ts := servertest.Start(t, servertest.WithProvider("openai", img.BaseURL(), ""),
		servertest.WithTools(servertest.Tools{ExaURL: exa.BaseURL(), SpiderURL: spider.BaseURL()}))
	for _, c := range []struct {
		path string
		body map[string]any
		hdr  []string
	}{
		{"/v1/images", map[string]any{"prompt": "a fox", "model": "openai:gpt-image-1"}, []string{"lb-llm-key", "sk-user"}},
		{"/v1/tools/web-search", map[string]any{"query": "q", "service": "exa"}, []string{"lb-web-search-key", "exa-key"}},
		{"/v1/tools/crawl", map[string]any{"url": []string{"https://example.org"}, "service": "spider"}, []string{"lb-crawl-key", "spider-key"}},
	} {
		if r := ts.Do("POST", c.path, servertest.AdminKey, c.body, c.hdr...); r.Status != 200 {
			t.Fatalf("%s: %d %s", c.path, r.Status, r.Body)
		}
	}
	families, err := ts.Metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range families {
		if f.GetName() != "hearth_upstream_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			seen[labels["provider"]+" "+labels["kind"]] = true
		}
	}
	for _, want := range []string{"openai image", "exa search", "spider crawl"} {
		if !seen[want] {
			t.Errorf("no upstream metric for %q; recorded: %v", want, seen)
		}
	}
	if !strings.Contains(strings.Join(ts.App.Describe(), "\n"), "runner: run log") {
		t.Error("the test server's Runner has no run log")
	}
}
