package server

import (
	"net/http"
	"strconv"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/labstack/echo/v4"
)

// defaultChunkPage is the page size of the chunk list without ?limit.
const defaultChunkPage = 50

// documentChunksRoute lists the chunks retrieval searches for one document
// (the studio's chunk viewer; docs/memories-and-retrieval.md#documents-and-the-upload-flow).
func (s *Server) documentChunksRoute() Route {
	return Route{Method: http.MethodGet, Path: "/v1/memory/:memoryName/documents/:documentName/chunks", Auth: AuthOwner,
		Handler: s.handleDocumentChunks,
		Doc: RouteDoc{Summary: "List the chunks of a document's live version, in document order (?offset, ?limit up to 200)",
			Response: chunkPageView{}, Query: []string{"offset", "limit"}}}
}

// chunkPageView is a page of a document's chunks; next_offset is null on
// the last page.
type chunkPageView struct {
	Document   string                 `json:"document"`
	Status     string                 `json:"status"`
	Version    string                 `json:"version"`
	Total      int                    `json:"total"`
	Data       []memory.DocumentChunk `json:"data"`
	NextOffset *int                   `json:"next_offset"`
}

func (s *Server) handleDocumentChunks(c echo.Context) error {
	mem, doc, err := s.documentParams(c)
	if err != nil {
		return err
	}
	offset, err := intQuery(c, "offset", 0)
	if err != nil {
		return err
	}
	limit, err := intQuery(c, "limit", defaultChunkPage)
	if err != nil {
		return err
	}
	page, err := s.deps.Memory.DocumentChunks(c.Request().Context(), principal(c).Owner, mem, doc, offset, limit)
	if err != nil {
		return err
	}
	out := chunkPageView{Document: page.Document.Name, Status: page.Document.Status, Version: page.Version,
		Total: page.Total, Data: page.Chunks}
	if next := offset + len(page.Chunks); len(page.Chunks) > 0 && next < page.Total {
		out.NextOffset = &next
	}
	return c.JSON(http.StatusOK, out)
}

// intQuery reads a whole-number query parameter, def when absent.
func intQuery(c echo.Context, name string, def int) (int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, engine.FieldError(name, "must be a whole number")
	}
	return n, nil
}
