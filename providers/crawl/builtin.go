package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// Limits bound the built-in crawler. Zero fields take DefaultLimits.
type Limits struct {
	// MaxPageBytes truncates a page body (default 2 MiB).
	MaxPageBytes int64
	// PageTimeout bounds one page fetch, redirects included (default 10 s).
	PageTimeout time.Duration
	// TotalTimeout bounds one crawl request; the pages fetched by then are
	// returned (default 30 s).
	TotalTimeout time.Duration
	// MaxRedirects bounds the redirects of one fetch (default 5).
	MaxRedirects int
	// Concurrency bounds the fetches in flight for one request (default 4).
	Concurrency int
	// MaxTotalBytes bounds the content one request returns; crawling stops
	// once it is reached (default 32 MiB).
	MaxTotalBytes int64
}

// DefaultLimits are the built-in crawler's limits.
func DefaultLimits() Limits {
	return Limits{MaxPageBytes: 2 << 20, PageTimeout: 10 * time.Second, TotalTimeout: 30 * time.Second, MaxRedirects: 5, Concurrency: 4,
		MaxTotalBytes: 32 << 20}
}

// UserAgent is what the built-in crawler sends; robots.txt groups for
// "Hearth" apply to it.
const UserAgent = "Hearth/1.0 (self-hosted LLM server; built-in crawler; +https://github.com/hearth-dev/hearth)"

// truncatedNote ends the content of a page cut at MaxPageBytes.
const truncatedNote = "\n\n[page truncated by Hearth]"

// Builtin is Hearth's own crawler (service "hearth"). It needs no key: it
// fetches pages itself through the netguard policy (private and loopback
// addresses are refused unless the operator allows them), honours
// robots.txt, follows same-site links breadth first up to maxPages per
// start URL, and turns HTML into markdown. It reads only text/html and
// text/plain.
type Builtin struct {
	transport http.RoundTripper
	limits    Limits
	log       *slog.Logger
}

var _ engine.Crawler = (*Builtin)(nil)

// NewBuiltin returns the built-in crawler under policy.
func NewBuiltin(policy netguard.Policy, limits Limits, log *slog.Logger) *Builtin {
	def := DefaultLimits()
	if limits.MaxPageBytes <= 0 {
		limits.MaxPageBytes = def.MaxPageBytes
	}
	if limits.PageTimeout <= 0 {
		limits.PageTimeout = def.PageTimeout
	}
	if limits.TotalTimeout <= 0 {
		limits.TotalTimeout = def.TotalTimeout
	}
	if limits.MaxRedirects <= 0 {
		limits.MaxRedirects = def.MaxRedirects
	}
	if limits.Concurrency <= 0 {
		limits.Concurrency = def.Concurrency
	}
	if limits.MaxTotalBytes <= 0 {
		limits.MaxTotalBytes = def.MaxTotalBytes
	}
	if log == nil {
		log = slog.Default()
	}
	return &Builtin{transport: policy.Transport(), limits: limits, log: log}
}

// NeedsKey implements engine.Crawler: the built-in crawler needs none.
func (b *Builtin) NeedsKey() bool { return false }

// run is the state of one crawl request, shared by its start URLs.
type run struct {
	b      *Builtin
	client *http.Client
	sem    chan struct{}
	mu     sync.Mutex
	robots map[string]*robotsEntry
	total  atomic.Int64 // content bytes kept so far
}

type robotsEntry struct {
	ready chan struct{}
	r     *robots
	// err is set when the outbound policy refused the host: the pages
	// are refused for that reason, not for robots.txt.
	err error
}

// fetched is one page fetch: its final URL, the page, or why there is none.
type fetched struct {
	url       string
	title     string
	content   string
	links     []string
	nofollow  bool
	err       error
	truncated bool
}

// Crawl implements engine.Crawler. Results come in start-URL order, each
// start URL's pages in breadth-first order. Pages that fail are left out;
// when no page at all could be read, the first start URL's failure is
// returned as the error.
func (b *Builtin) Crawl(ctx context.Context, job *engine.CrawlJob) ([]engine.ToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, b.limits.TotalTimeout)
	defer cancel()
	r := &run{b: b, sem: make(chan struct{}, b.limits.Concurrency), robots: map[string]*robotsEntry{}}
	r.client = &http.Client{Transport: b.transport, CheckRedirect: r.checkRedirect}
	per := make([][]engine.ToolResult, len(job.URLs))
	errs := make([]error, len(job.URLs))
	var wg sync.WaitGroup
	for i, u := range job.URLs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			per[i], errs[i] = r.site(ctx, u, job.MaxPages)
		}()
	}
	// The request's CPU turn goes to others while the sites answer.
	turn := engine.Away(ctx)
	wg.Wait()
	engine.Back(turn)
	// Start URLs are crawled independently (so the result does not depend
	// on timing); a page two of them reached is returned once.
	out := []engine.ToolResult{}
	seen := map[string]bool{}
	for _, p := range per {
		for _, res := range p {
			if !seen[res.URL] {
				seen[res.URL] = true
				out = append(out, res)
			}
		}
	}
	if len(out) == 0 {
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// site crawls from one start URL: breadth first, same site, up to max
// pages. Up to Concurrency pages of the queue are fetched at once; their
// results are taken in queue order, so the output is deterministic.
func (r *run) site(ctx context.Context, start string, max int) ([]engine.ToolResult, error) {
	su, err := url.Parse(start)
	if err != nil {
		return nil, engine.FieldError("url", "%q is not a valid URL", start)
	}
	var out []engine.ToolResult
	var firstErr error
	visited := map[string]bool{start: true}
	claim := func(u string) bool {
		if visited[u] {
			return false
		}
		visited[u] = true
		return true
	}
	queue := []string{start}
	for len(queue) > 0 && len(out) < max && ctx.Err() == nil && r.total.Load() < r.b.limits.MaxTotalBytes {
		n := min(len(queue), max-len(out), r.b.limits.Concurrency)
		batch := queue[:n]
		queue = queue[n:]
		results := make([]fetched, n)
		var wg sync.WaitGroup
		for i, u := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = r.page(ctx, u)
			}()
		}
		wg.Wait()
		for i, f := range results {
			if f.err != nil {
				r.b.log.Debug("crawl: page skipped", "url", batch[i], "err", f.err)
				if firstErr == nil {
					firstErr = f.err
				}
				continue
			}
			if f.url != batch[i] {
				if !claim(f.url) {
					continue // redirected to a page already crawled
				}
				if batch[i] == start {
					// The start URL moved (to www., to https): its new site is the one crawled.
					if nu, err := url.Parse(f.url); err == nil {
						su = nu
					}
				}
			}
			if f.content != "" && len(out) < max && r.total.Add(int64(len(f.content))) <= r.b.limits.MaxTotalBytes {
				out = append(out, engine.ToolResult{URL: f.url, Content: f.content})
			}
			if f.nofollow {
				continue
			}
			for _, l := range f.links {
				if sameSite(su, l) && crawlable(l) && claim(l) {
					queue = append(queue, l)
				}
			}
		}
	}
	if len(out) == 0 && firstErr == nil && ctx.Err() != nil {
		firstErr = engine.Errorf(engine.CodeUpstreamTimeout, "crawling %s took longer than %s", start, r.b.limits.TotalTimeout)
	}
	if len(out) == 0 && firstErr == nil {
		firstErr = engine.FieldError("url", "%s has no readable text", start)
	}
	return out, firstErr
}

// sameSite reports whether link is on the start URL's host and port
// (http and https alike).
func sameSite(start *url.URL, link string) bool {
	u, err := url.Parse(link)
	return err == nil && strings.EqualFold(u.Hostname(), start.Hostname()) && u.Port() == start.Port()
}

// binaryExt are link targets not worth a request: they are never HTML.
var binaryExt = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".svg": true, ".ico": true,
	".pdf": true, ".zip": true, ".gz": true, ".tgz": true, ".tar": true, ".7z": true, ".rar": true,
	".mp3": true, ".mp4": true, ".webm": true, ".mov": true, ".avi": true, ".wav": true, ".ogg": true,
	".css": true, ".js": true, ".woff": true, ".woff2": true, ".ttf": true, ".exe": true, ".dmg": true, ".iso": true,
}

func crawlable(link string) bool {
	u, err := url.Parse(link)
	return err == nil && !binaryExt[strings.ToLower(path.Ext(u.Path))]
}

// robotsPath is the part of u robots.txt rules match.
func robotsPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// errRobots reports a page robots.txt does not allow.
var errRobots = errors.New("disallowed by robots.txt")

// checkRedirect bounds redirects, keeps them on http(s) and under
// robots.txt; the address policy is enforced when dialling.
func (r *run) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > r.b.limits.MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", r.b.limits.MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to a %s URL refused", req.URL.Scheme)
	}
	if robotsPath(via[0].URL) == "/robots.txt" {
		return nil // robots.txt itself may move; its rules are what is being fetched
	}
	if err := r.allowed(req.Context(), req.URL); err != nil {
		return fmt.Errorf("redirect to %s: %w", req.URL, err)
	}
	return nil
}

// allowed fetches (once per host and request) and applies robots.txt. It
// returns nil, an error wrapping errRobots, or the outbound policy's
// refusal of the host.
func (r *run) allowed(ctx context.Context, u *url.URL) error {
	if robotsPath(u) == "/robots.txt" {
		return nil
	}
	key := u.Scheme + "://" + u.Host
	r.mu.Lock()
	e, ok := r.robots[key]
	if !ok {
		e = &robotsEntry{ready: make(chan struct{})}
		r.robots[key] = e
	}
	r.mu.Unlock()
	if !ok {
		e.r, e.err = r.fetchRobots(ctx, key+"/robots.txt")
		close(e.ready)
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	if e.err != nil {
		return e.err
	}
	if !e.r.allowed(robotsPath(u)) {
		return errRobots
	}
	return nil
}

// fetchRobots loads a robots.txt (RFC 9309): a 4xx means no rules; a
// server error or an unreachable site means everything is disallowed.
func (r *run) fetchRobots(ctx context.Context, robotsURL string) (*robots, error) {
	ctx, cancel := context.WithTimeout(ctx, r.b.limits.PageTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, robotsURL, nil)
	if err != nil {
		return &robots{disallowAll: true}, nil
	}
	req.Header.Set("User-Agent", UserAgent)
	resp, err := r.client.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrRefused) {
			return nil, err
		}
		return &robots{disallowAll: true}, nil
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 500<<10))
		return parseRobots(body), nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return &robots{}, nil
	default:
		return &robots{disallowAll: true}, nil
	}
}

// page fetches and extracts one page.
func (r *run) page(ctx context.Context, raw string) fetched {
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return fetched{err: ctx.Err()}
	}
	defer func() { <-r.sem }()
	u, err := url.Parse(raw)
	if err != nil {
		return fetched{err: err}
	}
	if err := r.allowed(ctx, u); err != nil {
		return fetched{err: pageError(raw, err)}
	}
	ctx, cancel := context.WithTimeout(ctx, r.b.limits.PageTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return fetched{err: pageError(raw, err)}
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1")
	resp, err := r.client.Do(req)
	if err != nil {
		return fetched{err: pageError(raw, err)}
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode != http.StatusOK {
		return fetched{err: pageError(raw, fmt.Errorf("HTTP %d", resp.StatusCode))}
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ctype == "" {
		ctype = "text/html"
	}
	if ctype != "text/html" && ctype != "application/xhtml+xml" && ctype != "text/plain" {
		return fetched{err: pageError(raw, fmt.Errorf("content type %s is not text/html or text/plain", ctype))}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, r.b.limits.MaxPageBytes+1))
	if err != nil && len(body) == 0 {
		return fetched{err: pageError(raw, err)}
	}
	f := fetched{url: final.String()}
	if int64(len(body)) > r.b.limits.MaxPageBytes {
		body, f.truncated = body[:r.b.limits.MaxPageBytes], true
	}
	text, err := charset.NewReader(bytes.NewReader(body), resp.Header.Get("Content-Type"))
	if err != nil {
		text = bytes.NewReader(body)
	}
	if ctype == "text/plain" {
		b, _ := io.ReadAll(text)
		f.content = strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
	} else {
		p, err := extractHTML(text, final)
		if err != nil {
			return fetched{err: pageError(raw, err)}
		}
		f.links, f.nofollow, f.title = p.links, p.nofollow, p.title
		if !p.noindex {
			f.content = p.markdown
		}
	}
	if f.truncated && f.content != "" {
		f.content += truncatedNote
	}
	return f
}

// pageError words why a page was left out; the outbound policy's refusal
// and robots.txt are told apart so the caller knows what to change.
func pageError(u string, err error) error {
	switch {
	case errors.Is(err, netguard.ErrRefused):
		msg := err.Error()
		if i := strings.Index(msg, netguard.ErrRefused.Error()); i >= 0 {
			msg = msg[i:]
		}
		return &engine.Error{Code: engine.CodeForbidden, Field: "url", Message: fmt.Sprintf("url: %s: %s", u, msg), Err: err}
	case errors.Is(err, errRobots):
		return &engine.Error{Code: engine.CodeForbidden, Field: "url", Message: fmt.Sprintf("url: %s is disallowed for Hearth by the site's robots.txt", u), Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &engine.Error{Code: engine.CodeUpstreamTimeout, Message: fmt.Sprintf("fetching %s timed out", u), Err: err}
	}
	return &engine.Error{Code: engine.CodeUpstream, Message: fmt.Sprintf("could not crawl %s: %s", u, clip(rootCause(err))), Err: err}
}

// rootCause strips url.Error's "Get \"...\":" prefix.
func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
