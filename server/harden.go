package server

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// Slow-client and overload protection. http.Server's ReadTimeout and
// WriteTimeout bound a whole request, which would cut off long SSE streams
// and large uploads; instead:
//
//   - headers must arrive within ReadHeaderTimeout (http.Server);
//   - a request body may go silent for at most BodyIdleTimeout, and after
//     a grace period must average BodyMinRate bytes a second (a client
//     trickling bytes is cut off with 408 and the connection closed);
//   - every response write gets WriteIdleTimeout to complete, re-armed per
//     write, so a stream may last hours while a client that stops reading
//     is dropped;
//   - at most MaxConcurrent requests are served at once; more get 503 with
//     Retry-After (health and metrics are exempt).

// Defaults of the hardening settings.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyIdleTimeout   = 15 * time.Second
	DefaultBodyMinRate       = 1024 // bytes a second, averaged after the grace period
	DefaultBodyGrace         = 10 * time.Second
	DefaultWriteIdleTimeout  = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultMaxConcurrent     = 512
)

// CodeRequestTimeout is answered 408 when a request body arrives too slowly.
const CodeRequestTimeout = "REQUEST_TIMEOUT"

var errBodyTooSlow = errors.New("request body arrived too slowly")

// hardenDefaults fills zero hardening settings with the defaults.
func (c *Config) hardenDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&c.BodyIdleTimeout, DefaultBodyIdleTimeout)
	def(&c.BodyGrace, DefaultBodyGrace)
	def(&c.WriteIdleTimeout, DefaultWriteIdleTimeout)
	def(&c.IdleTimeout, DefaultIdleTimeout)
	if c.BodyMinRate <= 0 {
		c.BodyMinRate = DefaultBodyMinRate
	}
	if c.MaxConcurrent == 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
}

// securityHeaders marks every answer nosniff (no uploaded or echoed bytes
// are ever rendered as active content) and gives API answers a CSP that
// allows nothing; the studio UI under /studio sets its own.
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		if p := c.Request().URL.Path; p != "/studio" && !strings.HasPrefix(p, "/studio/") {
			h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
			h.Set("Referrer-Policy", "no-referrer")
		}
		return next(c)
	}
}

// limitConcurrency answers 503 when MaxConcurrent requests are in flight.
func (s *Server) limitConcurrency(next echo.HandlerFunc) echo.HandlerFunc {
	if s.slots == nil {
		return next
	}
	return func(c echo.Context) error {
		if p := c.Path(); p == "/health" || p == "/metrics" {
			return next(c)
		}
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
			return next(c)
		default:
			s.metrics.Rejected("overload")
			return &engine.Error{Code: engine.CodeUnavailable, RetryAfter: 1,
				Message: "the server is at its limit of concurrent requests; retry shortly"}
		}
	}
}

// guardIO installs the slow-body guard and the per-write deadline.
func (s *Server) guardIO(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		orig := c.Response().Writer
		rc := http.NewResponseController(orig)
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			r.Body = &slowBodyGuard{body: r.Body, rc: rc, c: c, idle: s.cfg.BodyIdleTimeout,
				minRate: float64(s.cfg.BodyMinRate), grace: s.cfg.BodyGrace, start: time.Now()}
		}
		dw := &deadlineWriter{ResponseWriter: orig, rc: rc, idle: s.cfg.WriteIdleTimeout}
		c.Response().Writer = dw
		defer func() {
			// The server flushes after the handler: give that flush its time too.
			dw.arm(true)
			c.Response().Writer = orig
		}()
		return next(c)
	}
}

// slowBodyGuard enforces the body idle timeout and minimum rate.
type slowBodyGuard struct {
	body    io.ReadCloser
	rc      *http.ResponseController
	c       echo.Context
	idle    time.Duration
	minRate float64
	grace   time.Duration
	start   time.Time
	n       int64
	done    bool
}

func (g *slowBodyGuard) Read(p []byte) (int, error) {
	if g.done {
		return g.body.Read(p)
	}
	_ = g.rc.SetReadDeadline(time.Now().Add(g.idle))
	n, err := g.body.Read(p)
	g.n += int64(n)
	if err != nil {
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) && ne.Timeout() {
			return n, g.cut()
		}
		// EOF (or a client error): lift the deadline, so the server's
		// watch for a hang-up does not time out during a long answer.
		g.done = true
		_ = g.rc.SetReadDeadline(time.Time{})
		return n, err
	}
	if el := time.Since(g.start); el > g.grace && float64(g.n)/el.Seconds() < g.minRate {
		return n, g.cut()
	}
	return n, nil
}

// cut ends a too-slow body: later reads fail at once and the connection
// is closed after the 408.
func (g *slowBodyGuard) cut() error {
	g.done = true
	_ = g.rc.SetReadDeadline(time.Now())
	g.c.Response().Header().Set("Connection", "close")
	return errBodyTooSlow
}

func (g *slowBodyGuard) Close() error { return g.body.Close() }

// deadlineWriter re-arms the connection's write deadline before writes,
// so each write (not the whole response) is bounded.
type deadlineWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	idle  time.Duration
	armed time.Time
}

// arm pushes the write deadline to now+idle. It skips the call while at
// least three quarters of idle remain (always re-arming when force is set).
func (w *deadlineWriter) arm(force bool) {
	if w.idle <= 0 {
		return
	}
	now := time.Now()
	if !force && now.Sub(w.armed) < w.idle/4 {
		return
	}
	w.armed = now
	_ = w.rc.SetWriteDeadline(now.Add(w.idle))
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.arm(false)
	return w.ResponseWriter.Write(b)
}

func (w *deadlineWriter) WriteHeader(code int) {
	w.arm(false)
	w.ResponseWriter.WriteHeader(code)
}

// FlushError is found by http.ResponseController (the SSE writer flushes
// each event through it).
func (w *deadlineWriter) FlushError() error {
	w.arm(false)
	return w.rc.Flush()
}

// Flush implements http.Flusher for code that asserts it directly.
func (w *deadlineWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
