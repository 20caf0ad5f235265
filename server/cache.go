package server

import (
	"strconv"

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
	// HeaderCacheMatch is the response header saying how a hit matched:
	// exact, or semantic (a paraphrase of the last user message).
	HeaderCacheMatch = "lb-cache-match"
	// HeaderCacheSimilarity is the cosine similarity of a semantic hit.
	HeaderCacheSimilarity = "lb-cache-similarity"
)

// useCache gives the request a response cache ticket for owner when the
// server has a cache: its mode is the LB-Cache header's, else bodyMode
// (the request body's cache field, named field in errors), else the key's
// cache setting, else the pipe's (applied when the run is prepared). The
// lb-cache headers are set from the ticket's outcome and match just before
// the response is written. It
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
		h := c.Response().Header()
		if o := t.Outcome(); o != "" {
			setHeader(h, HeaderCache, o)
		}
		if m, sim := t.Match(); m != "" {
			setHeader(h, HeaderCacheMatch, m)
			if m == engine.CacheMatchSemantic {
				setHeader(h, HeaderCacheSimilarity, strconv.FormatFloat(sim, 'f', 4, 64))
			}
		}
	})
	return t, nil
}
