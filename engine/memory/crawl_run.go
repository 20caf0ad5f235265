package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/parse"
)

// runCrawl runs a claimed crawl job: it fetches the site through the
// configured crawler and uploads each new or changed page as a document,
// saving the crawl's progress after every page. The job ends with the
// record, in one transaction. A shutdown or a lost lease returns the
// context's error, so the job is queued again or abandoned by the run
// loop; a crawl that starts again begins from its start URL.
func (s *Service) runCrawl(ctx context.Context, j *Job) error {
	var c Crawl
	err := s.store.View(ctx, func(tx engine.Tx) error { return tx.Get(crawlKey(j.MemoryID, j.ID), &c) })
	if engine.IsNotFound(err) {
		return s.deleteJob(ctx, j.ID) // the memory was deleted with its records
	}
	if err != nil {
		return err
	}
	if s.cfg.Crawler == nil {
		return s.endCrawl(ctx, j, &c, CrawlFailed, "crawling into memories is not configured on this server")
	}
	job, err := c.siteJob()
	if err != nil {
		return s.endCrawl(ctx, j, &c, CrawlFailed, errMessage(err))
	}
	c.Status, c.Message, c.Stopped, c.Node, c.Attempts = CrawlRunning, "", "", j.Node, j.Attempts
	c.PagesFound, c.Ingested, c.Unchanged, c.Failed, c.Failures = 0, 0, 0, 0, []CrawlFailure{}
	c.StartedAt, c.FinishedAt = s.now().UTC(), time.Time{}
	if err := s.saveCrawl(ctx, &c); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CrawlTimeout)
	err = s.cfg.Crawler.CrawlSite(cctx, job, func(p engine.SitePage) error { return s.crawlPage(cctx, &c, p) })
	deadline := cctx.Err() != nil
	cancel()
	switch {
	case ctx.Err() != nil:
		if cause := context.Cause(ctx); cause != nil {
			return cause
		}
		return ctx.Err()
	case errors.Is(err, errLeaseLost):
		return err
	case deadline:
		c.Stopped = crawlStopDeadline
	case err != nil:
		return s.endCrawl(ctx, j, &c, CrawlFailed, errMessage(err))
	case c.PagesFound >= c.MaxPages:
		c.Stopped = crawlStopMaxPages
	}
	if c.Ingested+c.Unchanged == 0 {
		msg := "no page could be read"
		if len(c.Failures) > 0 {
			msg += ": " + c.Failures[0].Reason
		} else if deadline {
			msg += " before the crawl's deadline"
		}
		return s.endCrawl(ctx, j, &c, CrawlFailed, msg)
	}
	return s.endCrawl(ctx, j, &c, CrawlCompleted, "")
}

// crawlPage takes one page: a failure is counted with its reason; a page
// whose content hash equals its document's current version (and that did
// not fail) is counted unchanged; any other page is uploaded. The upload
// is not fenced by the job's lease (it goes through the upload path): a
// holder that lost its lease may upload the page it was on, the same
// content the new holder finds unchanged, and then stops at the fenced
// progress write.
func (s *Service) crawlPage(ctx context.Context, c *Crawl, p engine.SitePage) error {
	c.PagesFound++
	if p.Err != nil {
		s.crawlFailed(c, p.URL, errMessage(p.Err))
		return s.saveCrawl(ctx, c)
	}
	name := CrawlDocumentName(p.URL)
	sum := sha256.Sum256([]byte(p.Content))
	hash := hex.EncodeToString(sum[:])
	var d Document
	found := false
	err := s.store.View(ctx, func(tx engine.Tx) error {
		var m Memory
		if err := tx.Get(memoryKey(c.Owner, c.Memory), &m); err != nil || m.ID != c.MemoryID {
			if err == nil || engine.IsNotFound(err) {
				return engine.Errorf(engine.CodeNotFound, "memory %q was deleted during the crawl", c.Memory)
			}
			return err
		}
		err := tx.Get(docKey(c.MemoryID, name), &d)
		if engine.IsNotFound(err) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return err
	}
	if found && d.Current.Meta[MetaContentHash] == hash && d.Status != StatusFailed {
		c.Unchanged++
		return s.saveCrawl(ctx, c)
	}
	meta := map[string]string{MetaCrawlURL: clipRunes(p.URL, MaxMetaValue), MetaCrawledAt: s.now().UTC().Format(time.RFC3339),
		MetaContentHash: hash, MetaCrawlID: c.ID}
	if t := strings.TrimSpace(p.Title); t != "" {
		meta[MetaCrawlTitle] = clipRunes(t, MaxMetaValue)
	}
	if err := s.uploadPage(ctx, c, name, meta, p.Content); err != nil {
		if engine.IsNotFound(err) || ctx.Err() != nil {
			return err
		}
		var e *engine.Error
		if !errors.As(err, &e) || e.Code == engine.CodeInternal {
			return err
		}
		// The page was refused (a storage quota, a rule of the upload):
		// the crawl goes on and says why.
		s.crawlFailed(c, p.URL, errMessage(err))
		return s.saveCrawl(ctx, c)
	}
	c.Ingested++
	return s.saveCrawl(ctx, c)
}

// uploadPage stores a page as a new version of its markdown document and
// queues its ingestion, through the two steps of an upload.
func (s *Service) uploadPage(ctx context.Context, c *Crawl, name string, meta map[string]string, content string) error {
	ticket, err := s.CreateUpload(ctx, c.Owner, c.Memory, name, meta)
	if err != nil {
		return err
	}
	_, err = s.CompleteUpload(ctx, UploadRequest{Token: ticket.Token, Owner: c.Owner, ContentType: parse.TypeMarkdown, Body: strings.NewReader(content)})
	return err
}

func (s *Service) crawlFailed(c *Crawl, u, reason string) {
	c.Failed++
	if len(c.Failures) < maxCrawlFailures {
		c.Failures = append(c.Failures, CrawlFailure{URL: u, Reason: reason})
	}
}

// saveCrawl stores the crawl's progress under the job's lease.
func (s *Service) saveCrawl(ctx context.Context, c *Crawl) error {
	return s.update(ctx, func(tx engine.Tx) error { return putCrawl(tx, c) })
}

// putCrawl stores c unless its memory was deleted (the drop removes the
// memory's crawl records, which must not come back).
func putCrawl(tx engine.Tx, c *Crawl) error {
	var m Memory
	if err := tx.Get(memoryKey(c.Owner, c.Memory), &m); err != nil {
		if engine.IsNotFound(err) {
			return nil
		}
		return err
	}
	if m.ID != c.MemoryID {
		return nil
	}
	return tx.Put(crawlKey(c.MemoryID, c.ID), c)
}

// endCrawl stores the crawl's outcome and removes its job, in one
// transaction.
func (s *Service) endCrawl(ctx context.Context, j *Job, c *Crawl, status, msg string) error {
	c.Status, c.Message, c.FinishedAt = status, msg, s.now().UTC()
	if status == CrawlFailed {
		s.log.Warn("crawl failed", "crawl", c.ID, "memory", c.Memory, "url", c.URL, "reason", msg)
	}
	return s.update(ctx, func(tx engine.Tx) error {
		if err := putCrawl(tx, c); err != nil {
			return err
		}
		return tx.Delete(jobKey(j.ID))
	})
}

// failCrawl ends a crawl job the run loop gives up on (interrupted or
// failed too often) with msg; a crawl whose record is gone just loses its
// job.
func (s *Service) failCrawl(ctx context.Context, j *Job, msg string) error {
	var c Crawl
	err := s.store.View(ctx, func(tx engine.Tx) error { return tx.Get(crawlKey(j.MemoryID, j.ID), &c) })
	if engine.IsNotFound(err) {
		return s.deleteJob(ctx, j.ID)
	}
	if err != nil {
		return err
	}
	return s.endCrawl(ctx, j, &c, CrawlFailed, msg)
}

// CrawlDocumentName is the document name of a crawled page: its host and
// path made readable (characters other than letters, digits, '.', '-'
// and '_' become '_', at most 180 bytes), a dash, the first 12 hex digits
// of the SHA-256 of the full URL (so two URLs never share a name, and the
// same URL always gets the same one), and ".md".
func CrawlDocumentName(rawURL string) string {
	readable := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		p := u.Path
		if p == "/" {
			p = ""
		}
		readable = u.Host + p
	}
	var b strings.Builder
	under := false
	for _, r := range readable {
		ok := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '_'
		if !ok {
			r = '_'
		}
		if r == '_' && under {
			continue
		}
		under = r == '_'
		if b.Len()+utf8.RuneLen(r) > 180 {
			break
		}
		b.WriteRune(r)
	}
	sum := sha256.Sum256([]byte(rawURL))
	base := strings.Trim(b.String(), "_.")
	if base == "" {
		base = "page"
	}
	return base + "-" + hex.EncodeToString(sum[:6]) + ".md"
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
