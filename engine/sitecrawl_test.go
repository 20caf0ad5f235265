package engine

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestCompilePathGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{"/docs/*", []string{"/docs/a", "/docs/"}, []string{"/docs/a/b", "/docs", "/x/docs/a"}},
		{"/docs/**", []string{"/docs/a", "/docs/a/b/c", "/docs/"}, []string{"/doc", "/other/docs/a"}},
		{"/docs/**/*.html", []string{"/docs/a.html", "/docs/x/y/a.html"}, []string{"/docs/a.htm", "/a.html"}},
		{"*.pdf", []string{"/a.pdf", "/x/y/b.pdf"}, []string{"/a.pdfx", "/a.pdf/"}},
		{"/v?/api", []string{"/v1/api", "/v2/api"}, []string{"/v10/api", "/v/api", "/v//api"}},
		{"/a+b(c)", []string{"/a+b(c)"}, []string{"/aab(c)", "/a+bc"}},
		{"/café/*", []string{"/café/menu"}, []string{"/cafe/menu"}},
	} {
		re, err := CompilePathGlob("include[0]", tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		for _, p := range tc.match {
			if !re.MatchString(p) {
				t.Errorf("%q should match %q", tc.pattern, p)
			}
		}
		for _, p := range tc.miss {
			if re.MatchString(p) {
				t.Errorf("%q should not match %q", tc.pattern, p)
			}
		}
	}
	for _, bad := range []string{"", "  ", strings.Repeat("a", MaxSitePattern+1)} {
		_, err := CompilePathGlob("exclude[2]", bad)
		if e, ok := err.(*Error); !ok || e.Field != "exclude[2]" || e.Code != CodeBadRequest {
			t.Errorf("%q: %v, want a BAD_REQUEST naming exclude[2]", bad, err)
		}
	}
}

func TestSiteCrawlWanted(t *testing.T) {
	inc, _ := CompilePathGlob("include[0]", "/guide/**")
	exc, _ := CompilePathGlob("exclude[0]", "/guide/old/**")
	job := &SiteCrawl{Include: []*regexp.Regexp{inc}, Exclude: []*regexp.Regexp{exc}}
	for raw, want := range map[string]bool{
		"http://h/guide/a":          true,
		"http://h/guide/a?x=1":      true,
		"http://h/guide/old/a":      false,
		"http://h/blog/a":           false,
		"http://h/guide/caf%C3%A9":  true,
		"http://h/guide/old%2Fa":    false,
		"http://h/":                 false,
		"http://h/guide/old-but-ok": true,
	} {
		u, _ := url.Parse(raw)
		if got := job.Wanted(u); got != want {
			t.Errorf("Wanted(%s) = %v, want %v", raw, got, want)
		}
	}
	if !(&SiteCrawl{}).Wanted(&url.URL{Path: "/anything"}) {
		t.Error("no patterns: every page is wanted")
	}
}
