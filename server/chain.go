package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// chain serves requests as echo.Echo.ServeHTTP does with one Pre
// middleware and the global (Use) middleware: the pre middleware, then the
// router, then the global middleware around the route's handler (which
// carries its own route middleware). Echo wraps the global middleware
// around every request anew (one closure a layer a request); chain
// composes them once, when the server is built. Every middleware keeps its
// per-request state inside the request's call, none in the closure that
// wraps next, so one composed chain serves all requests. It is per
// process and holds no request state: nothing changes with several nodes.
type chain struct {
	e *echo.Echo
	h echo.HandlerFunc
}

// newChain composes pre, the router of e and mw (outermost first).
func newChain(e *echo.Echo, pre echo.MiddlewareFunc, mw ...echo.MiddlewareFunc) *chain {
	h := func(c echo.Context) error { return c.Handler()(c) }
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	inner := h
	route := func(c echo.Context) error {
		r := c.Request()
		e.Router().Find(r.Method, echo.GetPath(r), c)
		return inner(c)
	}
	return &chain{e: e, h: pre(route)}
}

// ServeHTTP serves one request with an echo context from e's pool; an
// error goes to e's HTTPErrorHandler, as in echo.
func (ch *chain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := ch.e.AcquireContext()
	c.Reset(r, w)
	if err := ch.h(c); err != nil {
		ch.e.HTTPErrorHandler(err, c)
	}
	ch.e.ReleaseContext(c)
}

// routeHandler wraps h in a route's middleware (outermost first) once, when
// the route is added: echo applies the middleware given to Echo.Add anew
// on every request, one closure a layer a request. Like the global
// middleware of chain, every route middleware keeps its per-request
// state inside the request's call.
func routeHandler(h echo.HandlerFunc, mw ...echo.MiddlewareFunc) echo.HandlerFunc {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}
