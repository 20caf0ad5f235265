package server

import (
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/labstack/echo/v4"
)

// memoryCrawlRoutes serve crawls of a site into a memory
// (docs/memories-and-retrieval.md#crawl-a-site-into-a-memory). A crawl is a
// durable job with its status in the store, so with several nodes on one
// database any node answers these routes, and one node at a time runs a given
// crawl.
func (s *Server) memoryCrawlRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/memory/:memoryName/documents/crawl", Auth: AuthOwner, Handler: s.handleCrawlStart,
			Doc: RouteDoc{Summary: "Crawl a site into a memory: each page becomes a markdown document (a job: 202 with its id)",
				Description: "Pages are fetched by the built-in crawler under the outbound policy and robots.txt; a re-crawl re-ingests only pages whose content changed. 409 CONFLICT while another crawl of the memory is queued or running.",
				Request:     memory.CrawlRequest{}, Response: crawlView{}}},
		{Method: http.MethodGet, Path: "/v1/memory/:memoryName/documents/crawl", Auth: AuthOwner, Handler: s.handleCrawlList,
			Doc: RouteDoc{Summary: "List a memory's crawls, newest first", Response: []crawlView{}}},
		{Method: http.MethodGet, Path: "/v1/memory/:memoryName/documents/crawl/:crawlId", Auth: AuthOwner, Handler: s.handleCrawlGet,
			Doc: RouteDoc{Summary: "A crawl's status and progress (pages found, ingested, unchanged, failed with reasons)", Response: crawlView{}}},
	}
}

// crawlView is a crawl's status as the API shows it: the stored record
// without its owner and memory id, with unset times as null.
type crawlView struct {
	ID     string `json:"id"`
	Memory string `json:"memory"`
	memory.CrawlState
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

func viewCrawl(c *memory.Crawl) crawlView {
	v := crawlView{ID: c.ID, Memory: c.Memory, CrawlState: c.CrawlState}
	if !c.StartedAt.IsZero() {
		v.StartedAt = &c.StartedAt
	}
	if !c.FinishedAt.IsZero() {
		v.FinishedAt = &c.FinishedAt
	}
	if v.Failures == nil {
		v.Failures = []memory.CrawlFailure{}
	}
	return v
}

func (s *Server) handleCrawlStart(c echo.Context) error {
	name, err := pathParam(c, "memoryName")
	if err != nil {
		return err
	}
	var body memory.CrawlRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	cr, err := s.deps.Memory.StartCrawl(c.Request().Context(), principal(c).Owner, name, body)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, viewCrawl(cr))
}

// handleCrawlGet shows one crawl. A document may be named "crawl": the
// paths of its chunks and retry routes also match this route, which hands
// them to the document handlers.
func (s *Server) handleCrawlGet(c echo.Context) error {
	switch c.Param("crawlId") {
	case "chunks":
		return s.asCrawlDocument(c, s.handleDocumentChunks)
	case "embeddings/retry":
		return s.asCrawlDocument(c, s.handleDocumentRetry)
	}
	name, err := pathParam(c, "memoryName")
	if err != nil {
		return err
	}
	id, err := pathParam(c, "crawlId")
	if err != nil {
		return err
	}
	cr, err := s.deps.Memory.GetCrawl(c.Request().Context(), principal(c).Owner, name, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewCrawl(cr))
}

func (s *Server) handleCrawlList(c echo.Context) error {
	name, err := pathParam(c, "memoryName")
	if err != nil {
		return err
	}
	crawls, err := s.deps.Memory.Crawls(c.Request().Context(), principal(c).Owner, name)
	if err != nil {
		return err
	}
	out := make([]crawlView, len(crawls))
	for i, cr := range crawls {
		out[i] = viewCrawl(cr)
	}
	return c.JSON(http.StatusOK, out)
}

// asCrawlDocument runs a document handler for the document named "crawl".
func (s *Server) asCrawlDocument(c echo.Context, h echo.HandlerFunc) error {
	c.SetParamNames("memoryName", "documentName")
	c.SetParamValues(c.Param("memoryName"), "crawl")
	return h(c)
}
