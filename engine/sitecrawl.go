package engine

import (
	"context"
	"net/url"
	"regexp"
	"strings"
)

// This file is the contract between a crawl of a site into a memory
// (docs/memories-and-retrieval.md#crawl-a-site-into-a-memory) and the crawler that fetches the
// pages: the validated job, the pages it reports, and the URL patterns
// that choose which pages of the site are taken.

// MaxSitePatterns bounds the include and exclude lists of a site crawl,
// and MaxSitePattern the length of one pattern.
const (
	MaxSitePatterns = 50
	MaxSitePattern  = 500
)

// SiteCrawl is one validated crawl of a site: breadth first from URL, on
// its host and port only, down to MaxDepth links from the start page, up
// to MaxPages pages fetched (failed ones count).
type SiteCrawl struct {
	URL      string
	MaxPages int
	MaxDepth int
	// Include and Exclude are compiled path patterns (see CompilePathGlob).
	Include []*regexp.Regexp
	Exclude []*regexp.Regexp
}

// Wanted reports whether the page at u passes the patterns: its path
// matches an include pattern (when any is given) and no exclude pattern.
// The start page is always fetched to find links, but it too is taken
// only when it is wanted.
func (c *SiteCrawl) Wanted(u *url.URL) bool {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if q, err := url.PathUnescape(p); err == nil {
		p = q
	}
	for _, re := range c.Exclude {
		if re.MatchString(p) {
			return false
		}
	}
	if len(c.Include) == 0 {
		return true
	}
	for _, re := range c.Include {
		if re.MatchString(p) {
			return true
		}
	}
	return false
}

// SitePage is one page of a site crawl: its final URL (after redirects),
// title and markdown, or Err saying why it could not be taken.
type SitePage struct {
	URL       string
	Title     string
	Content   string
	Depth     int
	Truncated bool
	Err       error
}

// SiteCrawler fetches the pages of a site for a crawl into a memory,
// calling page for each page taken, in breadth-first order, from one
// goroutine. An error from page stops the crawl and is returned; so is
// ctx's error when it ends the crawl early. A refused start URL (outbound
// policy, robots.txt) is reported as a failed page, not as an error.
type SiteCrawler interface {
	CrawlSite(ctx context.Context, job *SiteCrawl, page func(SitePage) error) error
}

// CompilePathGlob compiles a crawl include/exclude pattern, a glob matched
// against the whole URL path (decoded, starting with "/", query left out):
// "*" matches any run of characters other than "/", "**" any run of
// characters including "/", "?" one character other than "/"; every other
// character matches itself. A pattern that does not start with "/" is
// matched as if "**/" came before it, so "*.html" matches at any depth.
// Errors name field.
func CompilePathGlob(field, pattern string) (*regexp.Regexp, error) {
	switch {
	case strings.TrimSpace(pattern) == "":
		return nil, FieldError(field, "patterns may not be empty")
	case len(pattern) > MaxSitePattern:
		return nil, FieldError(field, "a pattern must be at most %d bytes", MaxSitePattern)
	}
	var b strings.Builder
	b.WriteString("^")
	if !strings.HasPrefix(pattern, "/") {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				i++
				if i+1 < len(pattern) && pattern[i+1] == '/' {
					// "**/" also matches no directory at all.
					i++
					b.WriteString("(?:.*/)?")
					continue
				}
				b.WriteString(".*")
				continue
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, FieldError(field, "%q is not a valid pattern: %v", pattern, err)
	}
	return re, nil
}
