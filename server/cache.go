package server

import (
	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

const (
	// headerCacheRequest is the request header choosing the response
	// cache's mode for one request: on, off or refresh.
	headerCacheRequest = "Lb-Cache"
	// HeaderCache is the response header saying how the response cache
	// served the request: hit, miss, refresh or bypass.
	HeaderCache = "lb-cache"
)

// useCache gives the request a response cache ticket for owner when the
// server has a cache: its mode is the LB-Cache header's, else bodyMode
// (the request body's cache field, named field in errors), else the key's
// cache setting, else the pipe's (applied when the run is prepared). The
// lb-cache header is set
// from the ticket's outcome just before the response is written. It
// returns nil when the server has no cache.
func (s *Server) useCache(c echo.Context, owner, field, bodyMode string) (*engine.CacheTicket, error) {
	hv := c.Request().Header.Get(headerCacheRequest)
	mode, err := engine.ParseCacheMode("LB-Cache", hv)
	if err != nil {
		return nil, err
	}
	body, err := engine.ParseCacheMode(field, bodyMode)
	if err != nil {
		return nil, err
	}
	if s.deps.Cache == nil {
		return nil, nil
	}
	if mode == "" {
		mode = body
	}
	if mode == "" {
		mode = principal(c).Scope.CacheMode()
	}
	req := c.Request()
	ctx, t := engine.WithCacheTicket(req.Context(), owner, mode)
	c.SetRequest(req.WithContext(ctx))
	c.Response().Before(func() {
		if o := t.Outcome(); o != "" {
			setHeader(c.Response().Header(), HeaderCache, o)
		}
	})
	return t, nil
}
