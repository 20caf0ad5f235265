package server

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/guard"
	"github.com/labstack/echo/v4"
)

// guardContext returns the request's context, carrying a report of
// guardrail actions when the server's policy or the caller's key checks
// anything: the model calls of the request fill it and its run record
// lists it. The request itself then carries that context, so every later
// reader of c.Request().Context() (a stream's run record) sees it.
func (s *Server) guardContext(c echo.Context) context.Context {
	ctx := c.Request().Context()
	var keyPolicy *guard.Policy
	if p := engine.PrincipalOf(ctx); p != nil && p.Scope != nil {
		keyPolicy = p.Scope.Guard
	}
	if s.deps.Guards.For(keyPolicy) == nil {
		return ctx
	}
	ctx = engine.WithGuardReport(ctx)
	c.SetRequest(c.Request().WithContext(ctx))
	return ctx
}
