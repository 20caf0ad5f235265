package memory

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// A crawl into a memory (docs/memories-and-retrieval.md#crawl-a-site-into-a-memory) is a durable
// job of kind JobCrawl whose id is the crawl's id, with a status record
// under crawl/<memoryID>/<id> that the job updates after every page. It
// runs on the shared job queue like ingestion: in cluster mode exactly one
// node claims it under a lease (Crawl.Node names it), and when that node
// dies another one takes it over once the lease has passed and crawls
// again from the start URL; pages already ingested then count as
// unchanged. Each page is uploaded as a markdown document through the
// normal upload path, so the memory's chunk settings, the storage quota
// and the ingestion queue apply to it.

// JobCrawl crawls a site into a memory.
const JobCrawl = "crawl"

// Limits and defaults of a crawl into a memory.
const (
	DefaultCrawlPages   = 100
	MaxCrawlPages       = 1000
	DefaultCrawlDepth   = 3
	MaxCrawlDepth       = 10
	DefaultCrawlTimeout = 30 * time.Minute
	// MaxCrawlURL bounds the start URL, in bytes.
	MaxCrawlURL = 2048
	// maxCrawlFailures is how many failed pages a crawl keeps with their
	// reasons (all are counted).
	maxCrawlFailures = 50
	// keptCrawls is how many crawl records a memory keeps; starting a
	// crawl deletes the oldest finished ones past it.
	keptCrawls = 20
)

// Crawl statuses.
const (
	CrawlQueued    = "queued"
	CrawlRunning   = "running"
	CrawlCompleted = "completed"
	CrawlFailed    = "failed"
)

// Meta keys of crawled documents.
const (
	MetaCrawlURL       = "url"
	MetaCrawlTitle     = "title"
	MetaCrawledAt      = "crawled_at"
	MetaContentHash    = "content_sha256"
	MetaCrawlID        = "crawl_id"
	crawlStopMaxPages  = "max_pages"
	crawlStopDeadline  = "deadline"
	crawlRecordsPrefix = "crawl/"
)

func crawlPrefix(memID string) string  { return crawlRecordsPrefix + memID + "/" }
func crawlKey(memID, id string) string { return crawlPrefix(memID) + id }

// CrawlRequest is the body of POST /v1/memory/{name}/documents/crawl.
type CrawlRequest struct {
	URL      string   `json:"url"`
	MaxPages *int     `json:"max_pages,omitempty"`
	MaxDepth *int     `json:"max_depth,omitempty"`
	Include  []string `json:"include,omitempty"`
	Exclude  []string `json:"exclude,omitempty"`
}

// CrawlFailure is a page a crawl could not take, and why.
type CrawlFailure struct {
	URL    string `json:"url"`
	Reason string `json:"reason"`
}

// Crawl is the status record of one crawl into a memory.
type Crawl struct {
	ID       string `json:"id"`
	Owner    string `json:"owner"`
	Memory   string `json:"memory"`
	MemoryID string `json:"memory_id"`
	CrawlState
	StartedAt  time.Time `json:"started_at,omitzero"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
}

// CrawlState is the part of a crawl's record that the API shows as stored:
// its settings and progress. PagesFound counts the pages the crawl reached
// and took: each is Ingested (new or changed, sent to the ingestion queue
// as a new document version), Unchanged (same content hash as the
// document's current version) or Failed.
type CrawlState struct {
	Status     string         `json:"status"`
	Message    string         `json:"message,omitempty"`
	URL        string         `json:"url"`
	MaxPages   int            `json:"max_pages"`
	MaxDepth   int            `json:"max_depth"`
	Include    []string       `json:"include"`
	Exclude    []string       `json:"exclude"`
	PagesFound int            `json:"pages_found"`
	Ingested   int            `json:"ingested"`
	Unchanged  int            `json:"unchanged"`
	Failed     int            `json:"failed"`
	Failures   []CrawlFailure `json:"failures"`
	// Stopped says which limit ended the crawl early: "max_pages" or
	// "deadline" ("" when the site was exhausted).
	Stopped string `json:"stopped,omitempty"`
	// Node is the node that runs (or ran) the crawl; Attempts counts its
	// starts (a crawl interrupted by a restart starts again).
	Node      string    `json:"node,omitempty"`
	Attempts  int       `json:"attempts"`
	CreatedAt time.Time `json:"created_at"`
}

// Active reports whether the crawl is queued or running.
func (c *Crawl) Active() bool { return c.Status == CrawlQueued || c.Status == CrawlRunning }

// validate checks a crawl request and returns its record (without ids)
// and the compiled job. Errors name the field.
func (req *CrawlRequest) validate() (*Crawl, *engine.SiteCrawl, error) {
	raw := strings.TrimSpace(req.URL)
	if raw == "" {
		return nil, nil, engine.FieldError("url", "is required: the absolute http(s) URL to start crawling from")
	}
	if len(raw) > MaxCrawlURL {
		return nil, nil, engine.FieldError("url", "must be at most %d bytes", MaxCrawlURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, engine.FieldError("url", "%q is not an absolute http(s) URL", raw)
	}
	if u.User != nil {
		return nil, nil, engine.FieldError("url", "may not carry a user name or password")
	}
	u.Fragment, u.RawFragment = "", ""
	c := &Crawl{CrawlState: CrawlState{URL: u.String(), MaxPages: DefaultCrawlPages, MaxDepth: DefaultCrawlDepth,
		Include: orEmpty(req.Include), Exclude: orEmpty(req.Exclude), Failures: []CrawlFailure{}}}
	if req.MaxPages != nil {
		if *req.MaxPages < 1 || *req.MaxPages > MaxCrawlPages {
			return nil, nil, engine.FieldError("max_pages", "must be from 1 to %d, got %d", MaxCrawlPages, *req.MaxPages)
		}
		c.MaxPages = *req.MaxPages
	}
	if req.MaxDepth != nil {
		if *req.MaxDepth < 0 || *req.MaxDepth > MaxCrawlDepth {
			return nil, nil, engine.FieldError("max_depth", "must be from 0 to %d, got %d", MaxCrawlDepth, *req.MaxDepth)
		}
		c.MaxDepth = *req.MaxDepth
	}
	job, err := c.siteJob()
	if err != nil {
		return nil, nil, err
	}
	return c, job, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// siteJob compiles the crawl's patterns into the crawler's job.
func (c *Crawl) siteJob() (*engine.SiteCrawl, error) {
	job := &engine.SiteCrawl{URL: c.URL, MaxPages: c.MaxPages, MaxDepth: c.MaxDepth}
	compile := func(field string, pats []string) ([]*regexp.Regexp, error) {
		if len(pats) > engine.MaxSitePatterns {
			return nil, engine.FieldError(field, "may hold at most %d patterns, got %d", engine.MaxSitePatterns, len(pats))
		}
		out := make([]*regexp.Regexp, len(pats))
		for i, p := range pats {
			re, err := engine.CompilePathGlob(fmt.Sprintf("%s[%d]", field, i), p)
			if err != nil {
				return nil, err
			}
			out[i] = re
		}
		return out, nil
	}
	var err error
	if job.Include, err = compile("include", c.Include); err != nil {
		return nil, err
	}
	if job.Exclude, err = compile("exclude", c.Exclude); err != nil {
		return nil, err
	}
	return job, nil
}

// StartCrawl validates a crawl request and queues the crawl. A memory runs
// one crawl at a time: another one queued or running is a CONFLICT (the
// check and the insert share a transaction, so it holds across nodes).
func (s *Service) StartCrawl(ctx context.Context, owner, memoryName string, req CrawlRequest) (*Crawl, error) {
	if s.cfg.Crawler == nil {
		return nil, engine.Errorf(engine.CodeUnavailable, "crawling into memories is not configured on this server")
	}
	c, _, err := req.validate()
	if err != nil {
		return nil, err
	}
	err = s.store.Update(ctx, func(tx engine.Tx) error {
		var m Memory
		if err := getMemory(tx, owner, memoryName, &m); err != nil {
			return err
		}
		var finished []string
		err := engine.ScanJSON(tx, crawlPrefix(m.ID), func(o *Crawl) error {
			if o.Active() {
				return engine.Errorf(engine.CodeConflict, "memory %q is already being crawled (crawl %s is %s); wait for it to finish", m.Name, o.ID, o.Status)
			}
			finished = append(finished, o.ID)
			return nil
		})
		if err != nil {
			return err
		}
		for len(finished) >= keptCrawls {
			if err := tx.Delete(crawlKey(m.ID, finished[0])); err != nil {
				return err
			}
			finished = finished[1:]
		}
		j := s.newJob(JobCrawl, &m, "", nil)
		c.ID, c.Owner, c.Memory, c.MemoryID, c.Status, c.CreatedAt = j.ID, owner, m.Name, m.ID, CrawlQueued, j.CreatedAt
		if err := tx.Put(crawlKey(m.ID, c.ID), c); err != nil {
			return err
		}
		return s.enqueue(tx, j)
	})
	if err != nil {
		return nil, err
	}
	s.ingest.poke()
	return c, nil
}

// GetCrawl returns one crawl of a memory.
func (s *Service) GetCrawl(ctx context.Context, owner, memoryName, id string) (*Crawl, error) {
	var c Crawl
	err := s.store.View(ctx, func(tx engine.Tx) error {
		var m Memory
		if err := getMemory(tx, owner, memoryName, &m); err != nil {
			return err
		}
		if err := tx.Get(crawlKey(m.ID, id), &c); err != nil {
			if engine.IsNotFound(err) {
				return engine.NotFound("crawl", id)
			}
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// Crawls returns a memory's crawl records, newest first.
func (s *Service) Crawls(ctx context.Context, owner, memoryName string) ([]*Crawl, error) {
	out := []*Crawl{}
	err := s.store.View(ctx, func(tx engine.Tx) error {
		var m Memory
		if err := getMemory(tx, owner, memoryName, &m); err != nil {
			return err
		}
		return engine.ScanJSON(tx, crawlPrefix(m.ID), func(c *Crawl) error {
			out = append(out, c)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, err
}
