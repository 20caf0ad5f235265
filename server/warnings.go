package server

import (
	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// HeaderWarning carries a warning about a request that succeeded, such as a
// pipe or memory created on a provider no key is configured for (docs/getting-started.md#defaults).
const HeaderWarning = "lb-warning"

// warnMissingKey sets HeaderWarning when model's provider needs a key and
// neither the owner's keyset nor the server has one.
func (s *Server) warnMissingKey(c echo.Context, owner, model string) {
	ref, err := engine.ParseModelID("model", model)
	if err != nil {
		return
	}
	if w := s.deps.Keysets.MissingKeyWarning(c.Request().Context(), ref.Provider, owner); w != "" {
		setHeader(c.Response().Header(), HeaderWarning, w)
	}
}
