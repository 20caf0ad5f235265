package server

import (
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// keysetRoutes manage the caller's provider keys (user or org keyset).
// Keys are write-only: listings show the last four characters.
func (s *Server) keysetRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/keysets", Auth: AuthOwner, Handler: s.handleKeysetList,
			Doc: RouteDoc{Summary: "List the caller's provider keys (last four characters)", Response: []engine.KeysetEntry{}}},
		{Method: http.MethodPut, Path: "/v1/keysets/:provider", Auth: AuthOwner, Handler: s.handleKeysetSet,
			Doc: RouteDoc{Summary: "Set a provider key", Request: keysetSetBody{}, Response: engine.KeysetEntry{}}},
		{Method: http.MethodPost, Path: "/v1/keysets/:provider", Auth: AuthOwner, Handler: s.handleKeysetSet,
			Doc: RouteDoc{Summary: "Set a provider key", Request: keysetSetBody{}, Response: engine.KeysetEntry{}}},
		{Method: http.MethodDelete, Path: "/v1/keysets/:provider", Auth: AuthOwner, Handler: s.handleKeysetDelete,
			Doc: RouteDoc{Summary: "Remove a provider key", Response: successView{}}},
	}
}

func (s *Server) handleKeysetList(c echo.Context) error {
	list, err := s.deps.Keysets.List(c.Request().Context(), engine.OwnerScope(principal(c).Owner))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, list)
}

func (s *Server) handleKeysetSet(c echo.Context) error {
	provider, err := pathParam(c, "provider")
	if err != nil {
		return err
	}
	var body struct {
		Key string `json:"key"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	entry, err := s.deps.Keysets.Set(c.Request().Context(), engine.OwnerScope(principal(c).Owner), provider, body.Key)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, entry)
}

func (s *Server) handleKeysetDelete(c echo.Context) error {
	provider, err := pathParam(c, "provider")
	if err != nil {
		return err
	}
	if err := s.deps.Keysets.Delete(c.Request().Context(), engine.OwnerScope(principal(c).Owner), provider); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]bool{"success": true})
}
