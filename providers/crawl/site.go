package crawl

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

var _ engine.SiteCrawler = (*Builtin)(nil)

// errNoText reports a page fetched without readable text (an empty page,
// or one marked noindex).
var errNoText = errors.New("the page has no readable text (empty, or marked noindex)")

// siteLink is a URL waiting in a site crawl's queue, with its depth.
type siteLink struct {
	url   string
	depth int
}

// CrawlSite implements engine.SiteCrawler for crawls into a memory. It
// fetches pages as Crawl does (the same outbound policy, robots.txt, page
// size cap and timeouts, Concurrency fetches at once) but has no total
// timeout or byte budget of its own: ctx bounds it, and the pages are
// handed to page one at a time instead of collected. Links are followed
// on the start page's host and port only, down to job.MaxDepth; a link
// the job's patterns do not want is neither fetched nor followed (the
// start page is always fetched for its links). Pages come in queue order,
// so the result does not depend on timing.
func (b *Builtin) CrawlSite(ctx context.Context, job *engine.SiteCrawl, page func(engine.SitePage) error) error {
	r := &run{b: b, sem: make(chan struct{}, b.limits.Concurrency), robots: map[string]*robotsEntry{}}
	r.client = &http.Client{Transport: b.transport, CheckRedirect: r.checkRedirect}
	su, err := url.Parse(job.URL)
	if err != nil {
		return engine.FieldError("url", "%q is not a valid URL", job.URL)
	}
	visited := map[string]bool{job.URL: true}
	claim := func(u string) bool {
		if visited[u] {
			return false
		}
		visited[u] = true
		return true
	}
	queue := []siteLink{{url: job.URL}}
	fetchedPages := 0
	for len(queue) > 0 && fetchedPages < job.MaxPages {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(queue), job.MaxPages-fetchedPages, b.limits.Concurrency)
		batch := queue[:n]
		queue = queue[n:]
		fetchedPages += n
		results := make([]fetched, n)
		var wg sync.WaitGroup
		for i, l := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = r.page(ctx, l.url)
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, f := range results {
			l := batch[i]
			p := engine.SitePage{URL: l.url, Depth: l.depth}
			if f.err != nil {
				p.Err = f.err
				if err := page(p); err != nil {
					return err
				}
				continue
			}
			final, err := url.Parse(f.url)
			if err != nil {
				continue
			}
			if f.url != l.url {
				if l.depth == 0 {
					su = final // the start URL moved (to www., to https): its new site is the one crawled
				}
				if !sameSite(su, f.url) || !claim(f.url) {
					continue // redirected off the site, or to a page already taken
				}
			}
			p.URL, p.Title, p.Content, p.Truncated = f.url, f.title, f.content, f.truncated
			if l.depth > 0 || job.Wanted(final) {
				if p.Content == "" {
					p.Err = errNoText
				}
				if err := page(p); err != nil {
					return err
				}
			} else {
				fetchedPages-- // an unwanted start page is only read for its links
			}
			if f.nofollow || l.depth >= job.MaxDepth {
				continue
			}
			for _, link := range f.links {
				lu, err := url.Parse(link)
				if err != nil || !sameSite(su, link) || !crawlable(link) || !job.Wanted(lu) {
					continue
				}
				if claim(link) {
					queue = append(queue, siteLink{url: link, depth: l.depth + 1})
				}
			}
		}
	}
	return nil
}
