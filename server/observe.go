package server

import (
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// routeUnmatched labels requests that matched no route, so probes for
// random paths cannot grow the metric series.
const routeUnmatched = "unmatched"

// knownMethod reports whether the request counter labels method as it
// is; any other method is counted as "other". A switch, not a map: no
// hashing a request.
func knownMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// observe records every request in the HTTP metrics: in flight while it
// runs, then counted by method, route template and final status. Its
// duration runs from the request's start (requestIDs) to the access log's
// time when a line was written (the same span as the line's duration_ms),
// else to now.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		st := stateOf(c)
		start := startOf(st)
		s.metrics.InFlight(1)
		defer s.metrics.InFlight(-1)
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		route := c.Path()
		if !s.routePaths[route] {
			route = routeUnmatched
		}
		method := c.Request().Method
		if !knownMethod(method) {
			method = "other"
		}
		var end time.Time
		if st != nil {
			end = st.end
		}
		if end.IsZero() {
			end = time.Now()
		}
		s.metrics.Request(method, route, c.Response().Status, end.Sub(start))
		return nil
	}
}

func (s *Server) metricsRoutes() []Route {
	if s.cfg.MetricsOff {
		return nil
	}
	return []Route{
		// AuthOptional: the handler accepts the admin user's key or the
		// metrics token, which is not an API key.
		{Method: http.MethodGet, Path: "/metrics", Auth: AuthOptional, Handler: s.handleMetrics,
			Doc: RouteDoc{Summary: "Prometheus metrics (admin user key or metrics token)", RawType: "text/plain"}},
	}
}

// handleMetrics serves Prometheus metrics on the main listener to the
// operator: the admin user's key, or the HEARTH_METRICS_TOKEN bearer.
func (s *Server) handleMetrics(c echo.Context) error {
	if tok := s.cfg.MetricsToken; tok != "" {
		if b := bearer(c); b != "" && subtle.ConstantTimeCompare([]byte(b), []byte(tok)) == 1 {
			s.metrics.Handler().ServeHTTP(c.Response(), c.Request())
			return nil
		}
	}
	p := principal(c)
	if p == nil {
		return engine.Errorf(engine.CodeUnauthorized, "metrics need the admin user's API key or the metrics token as a bearer")
	}
	if p.Kind != engine.KeyUser {
		return engine.Errorf(engine.CodeForbidden, "only the operator (admin) user may read metrics")
	}
	acct, err := s.deps.Accounts.Get(c.Request().Context(), p.Owner)
	if err != nil {
		return err
	}
	if !acct.Admin {
		return engine.Errorf(engine.CodeForbidden, "only the operator (admin) user may read metrics")
	}
	s.metrics.Handler().ServeHTTP(c.Response(), c.Request())
	return nil
}

// openMetricsListener serves /metrics without auth on cfg.MetricsAddr, a
// separate (private) address, when one is configured.
func (s *Server) openMetricsListener() error {
	if s.cfg.MetricsAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.MetricsAddr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics.Handler())
	s.metricsLn = ln
	s.metricsHTTP = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 16 << 10}
	go func() {
		if err := s.metricsHTTP.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics server stopped", "err", err)
		}
	}()
	return nil
}

// MetricsURL returns the base URL of the separate metrics listener, or "".
func (s *Server) MetricsURL() string {
	if s.metricsLn == nil {
		return ""
	}
	return "http://" + s.metricsLn.Addr().String()
}
