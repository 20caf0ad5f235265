package server

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// corsFast answers as echo's CORS middleware with cfg answers, with the
// headers of requests other than preflights set from values built once:
// echo's adds "Vary: Origin" (and, for a browser's request, its allowed
// origin and exposed headers) as new one-element slices on every request.
// Shared values have len == cap, so a later Add copies instead of writing
// into them. Preflights (OPTIONS) go to echo's middleware. cfg must allow
// any origin ("*") without credentials, as corsConfig does; any other
// policy is served by echo's middleware alone. It holds no state: nothing
// changes with several Hearth nodes.
func corsFast(cfg middleware.CORSConfig) echo.MiddlewareFunc {
	slow := middleware.CORSWithConfig(cfg)
	if len(cfg.AllowOrigins) != 1 || cfg.AllowOrigins[0] != "*" || cfg.AllowCredentials || cfg.AllowOriginFunc != nil || cfg.Skipper != nil {
		return slow
	}
	var expose []string
	if len(cfg.ExposeHeaders) > 0 {
		expose = []string{strings.Join(cfg.ExposeHeaders, ",")}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		preflight := slow(next)
		return func(c echo.Context) error {
			req := c.Request()
			if req.Method == http.MethodOptions {
				return preflight(c)
			}
			h := c.Response().Header()
			if v, ok := h[echo.HeaderVary]; ok {
				h[echo.HeaderVary] = append(v, echo.HeaderOrigin)
			} else {
				h[echo.HeaderVary] = varyOrigin
			}
			if req.Header.Get(echo.HeaderOrigin) == "" {
				return next(c)
			}
			h[echo.HeaderAccessControlAllowOrigin] = anyOrigin
			if expose != nil {
				h[echo.HeaderAccessControlExposeHeaders] = expose
			}
			return next(c)
		}
	}
}

var (
	varyOrigin = []string{echo.HeaderOrigin}
	anyOrigin  = []string{"*"}
)
