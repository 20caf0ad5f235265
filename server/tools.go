package server

import (
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

func (s *Server) toolRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/tools/web-search", Auth: AuthOwner, Handler: s.handleWebSearch,
			Doc: RouteDoc{Summary: "Search the web", Request: engine.WebSearchRequest{}, Response: []engine.ToolResult{}}},
		{Method: http.MethodPost, Path: "/v1/tools/crawl", Auth: AuthOwner, Handler: s.handleCrawl,
			Doc: RouteDoc{Summary: "Crawl web pages", Request: engine.CrawlRequest{}, Response: []engine.ToolResult{}}},
	}
}

// handleWebSearch searches the web; the service key comes from the
// LB-WEB-SEARCH-KEY header, or the body's apiKey.
func (s *Server) handleWebSearch(c echo.Context) error {
	var req engine.WebSearchRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	res, err := s.deps.Tools.WebSearch(c.Request().Context(), c.Request().Header.Get("LB-WEB-SEARCH-KEY"), &req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// handleCrawl crawls pages; the service key comes from the LB-CRAWL-KEY
// header, or the body's apiKey (service "hearth" needs none).
func (s *Server) handleCrawl(c echo.Context) error {
	var req engine.CrawlRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	res, err := s.deps.Tools.Crawl(c.Request().Context(), c.Request().Header.Get("LB-CRAWL-KEY"), &req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
