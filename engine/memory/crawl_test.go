package memory

import (
	"strings"
	"testing"
)

func TestCrawlDocumentName(t *testing.T) {
	seen := map[string]string{}
	for _, u := range []string{
		"http://intranet.local/",
		"http://intranet.local",
		"http://intranet.local/guide/install",
		"http://intranet.local/guide/install?lang=fr",
		"http://intranet.local/guide/install/",
		"https://intranet.local/guide/install",
		"http://intranet.local:8080/guide/install",
		"http://intranet.local/a b/%3F?#x",
		"http://intranet.local/" + strings.Repeat("long-segment/", 40),
		"http://intranet.local/café/menü",
	} {
		name := CrawlDocumentName(u)
		if err := ValidateDocumentName("name", name); err != nil {
			t.Errorf("%s: name %q is not a valid document name: %v", u, name, err)
		}
		if !strings.HasSuffix(name, ".md") || len(name) > 200 {
			t.Errorf("%s: name %q", u, name)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("%s and %s share the name %q", u, other, name)
		}
		seen[name] = u
		if again := CrawlDocumentName(u); again != name {
			t.Errorf("%s: names %q then %q", u, name, again)
		}
	}
	if got := CrawlDocumentName("http://intranet.local/guide/install"); !strings.HasPrefix(got, "intranet.local_guide_install-") {
		t.Errorf("name %q does not read as its host and path", got)
	}
}

func TestCrawlRequestValidate(t *testing.T) {
	pages, depth := 5, 0
	c, job, err := (&CrawlRequest{URL: " https://docs.example.com/start#top ", MaxPages: &pages, MaxDepth: &depth,
		Include: []string{"/guide/**"}}).validate()
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "https://docs.example.com/start" || c.MaxPages != 5 || c.MaxDepth != 0 || job.MaxPages != 5 || len(job.Include) != 1 || c.Exclude == nil {
		t.Fatalf("validated: %+v %+v", c, job)
	}
	c, _, err = (&CrawlRequest{URL: "http://h/"}).validate()
	if err != nil || c.MaxPages != DefaultCrawlPages || c.MaxDepth != DefaultCrawlDepth {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = "/x"
	}
	if _, _, err := (&CrawlRequest{URL: "http://h/", Exclude: many}).validate(); err == nil || !strings.HasPrefix(err.Error(), "BAD_REQUEST: exclude:") {
		t.Fatalf("51 exclude patterns: %v", err)
	}
}
