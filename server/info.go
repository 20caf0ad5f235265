package server

import (
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

type infoResponse struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Link    string `json:"link"`
}

func (s *Server) handleRoot(c echo.Context) error {
	return c.JSON(http.StatusOK, infoResponse{Success: true,
		Message: "Hearth " + s.cfg.Version + ": a self-hosted, Langbase-compatible LLM application server",
		Link:    s.cfg.PublicURL + "/studio/"})
}

// handleHealth reports healthy only when the store answers a read.
func (s *Server) handleHealth(c echo.Context) error {
	err := s.deps.Store.View(c.Request().Context(), func(tx engine.Tx) error {
		_, err := tx.Exists("meta/health")
		return err
	})
	if err != nil {
		return engine.Wrap(err, engine.CodeUnavailable, "storage is not available")
	}
	return c.JSON(http.StatusOK, infoResponse{Success: true, Message: "ok", Link: s.cfg.PublicURL + "/health"})
}

type routeInfo struct {
	Method string `json:"method"`
	Path   string `json:"path"`
}

// handleRoutes lists the real route table, so it cannot drift from what is served.
func (s *Server) handleRoutes(c echo.Context) error {
	out := make([]routeInfo, 0, len(s.routes))
	for _, r := range s.routes {
		out = append(out, routeInfo{Method: r.Method, Path: r.Path})
	}
	return c.JSON(http.StatusOK, map[string]any{"success": true, "message": "routes", "routes": out})
}

func (s *Server) handleModels(c echo.Context) error {
	cat := map[string][]engine.ModelInfo{}
	if s.deps.Providers != nil {
		cat = s.deps.Providers.Catalogue()
	}
	return c.JSON(http.StatusOK, s.withLocalModels(c.Request().Context(), cat))
}
