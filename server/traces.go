package server

import (
	"net/http"
	"strconv"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

func (s *Server) traceRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/v1/traces", Auth: AuthOwner, Handler: s.handleTraceCreate, BodyLimit: engine.MaxTraceBytes + 4096,
			Doc: RouteDoc{Summary: "Store a workflow trace", Response: traceCreateView{}}},
		{Method: http.MethodGet, Path: "/v1/traces", Auth: AuthOwner, Handler: s.handleTraceList,
			Doc: RouteDoc{Summary: "List workflow traces, newest first", Response: []engine.Trace{}, Query: []string{"limit"}}},
	}
}

func (s *Server) handleTraceCreate(c echo.Context) error {
	b, err := readBody(c)
	if err != nil {
		return err
	}
	if err := checkDepth(b); err != nil {
		return err
	}
	tr, err := s.deps.Traces.Create(c.Request().Context(), principal(c).Owner, b)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "id": tr.ID})
}

func (s *Server) handleTraceList(c echo.Context) error {
	limit := 50
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			return engine.FieldError("limit", "must be a whole number from 1 to 500")
		}
		limit = n
	}
	list, err := s.deps.Traces.List(c.Request().Context(), principal(c).Owner, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, list)
}
