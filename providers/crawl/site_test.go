package crawl

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func globs(t *testing.T, pats ...string) []*regexp.Regexp {
	t.Helper()
	var out []*regexp.Regexp
	for _, p := range pats {
		re, err := engine.CompilePathGlob("include", p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, re)
	}
	return out
}

func crawlSite(t *testing.T, b *Builtin, job *engine.SiteCrawl) []engine.SitePage {
	t.Helper()
	var pages []engine.SitePage
	if err := b.CrawlSite(context.Background(), job, func(p engine.SitePage) error {
		pages = append(pages, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return pages
}

// TestCrawlSite: pages come breadth first in link order with their depth,
// title and failures; depth, robots.txt, content types, truncation and
// redirects follow the built-in crawler's rules.
func TestCrawlSite(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	pages := crawlSite(t, b, &engine.SiteCrawl{URL: s.URL + "/", MaxPages: 50, MaxDepth: 1})
	var got []string
	byPath := map[string]engine.SitePage{}
	for _, p := range pages {
		path := strings.TrimPrefix(p.URL, s.URL)
		status := "ok"
		if p.Err != nil {
			status = "failed"
		}
		got = append(got, path+" "+status)
		byPath[path] = p
	}
	want := []string{"/ ok", "/a ok", "/b ok", "/private/secret failed", "/private/open ok", "/run.cgi failed",
		"/data.json failed", "/plain.txt ok", "/big ok", "/d ok", "/redirect-disallowed failed"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("pages:\n%s\nwant:\n%s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	if p := byPath["/"]; p.Title != "Home" || p.Depth != 0 || !strings.Contains(p.Content, "Welcome to the test site.") {
		t.Fatalf("start page: %+v", p)
	}
	if p := byPath["/a"]; p.Title != "Page A" || p.Depth != 1 {
		t.Fatalf("page A: %+v", p)
	}
	if p := byPath["/big"]; !p.Truncated || !strings.HasSuffix(p.Content, truncatedNote) {
		t.Fatal("a page past MaxPageBytes is cut and marked")
	}
	if err := byPath["/private/secret"].Err; err == nil || !strings.Contains(err.Error(), "robots.txt") {
		t.Fatalf("robots.txt failure: %v", err)
	}
	if s.count("/c") != 0 || s.count("/private/secret") != 0 {
		t.Fatal("fetched past max_depth or a page robots.txt disallows")
	}
}

// TestCrawlSitePatterns: pages the patterns do not want are neither fetched
// nor followed; the start page is read for its links only; max_pages
// counts the pages taken.
func TestCrawlSitePatterns(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	pages := crawlSite(t, b, &engine.SiteCrawl{URL: s.URL + "/", MaxPages: 50, MaxDepth: 3, Include: globs(t, "/a", "/c")})
	if len(pages) != 2 || pages[0].URL != s.URL+"/a" || pages[1].URL != s.URL+"/c" || pages[1].Depth != 2 {
		t.Fatalf("include /a and /c: %+v", pages)
	}
	if s.count("/b") != 0 || s.count("/plain.txt") != 0 {
		t.Fatalf("unwanted pages were fetched: %v", s.paths())
	}
	pages = crawlSite(t, b, &engine.SiteCrawl{URL: s.URL + "/", MaxPages: 2, MaxDepth: 3, Exclude: globs(t, "/a")})
	if len(pages) != 2 || pages[0].URL != s.URL+"/" || pages[1].URL != s.URL+"/b" {
		t.Fatalf("exclude /a, max_pages 2: %+v", pages)
	}
	if s.count("/a") != 1 {
		t.Fatalf("/a fetched %d times, want once (by the first crawl only)", s.count("/a"))
	}
}

// TestCrawlSiteStops: the page callback's error and the context end the
// crawl and are returned.
func TestCrawlSiteStops(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	stop := engine.Errorf(engine.CodeNotFound, "memory deleted")
	n := 0
	err := b.CrawlSite(context.Background(), &engine.SiteCrawl{URL: s.URL + "/", MaxPages: 50, MaxDepth: 2}, func(engine.SitePage) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Fatalf("callback error: %v after %d pages", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.CrawlSite(ctx, &engine.SiteCrawl{URL: s.URL + "/", MaxPages: 50, MaxDepth: 2}, func(engine.SitePage) error { return nil }); err != context.Canceled {
		t.Fatalf("cancelled: %v", err)
	}
}
