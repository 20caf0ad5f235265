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
//   - a request body may go silent for at most BodyIdleTimeout, after a
//     grace period must average BodyMinRate bytes a second, and must have
//     arrived whole within BodyTimeout (UploadBodyTimeout for uploads) of
//     the request's start (a client trickling bytes is cut off with 408
//     and the connection closed);
//   - every response write gets WriteIdleTimeout to complete, re-armed per
//     write, so a stream may last hours while a client that stops reading
//     is dropped;
//   - at most MaxConcurrent requests are served at once, shared fairly
//     between API keys (client addresses, without a key); more wait up to
//     QueueTimeout, at most MaxQueued of them, then get 503 with
//     Retry-After (health and metrics are exempt); fixed caps per key and
//     per address (MaxInFlightPerKey, MaxInFlightPerIP, off by default)
//     answer 429 (admit.go, share.go);
//   - while two keys or more have requests in flight, TurnsPerCPU of the
//     admitted requests per CPU compute at once, shared by the same rule,
//     so one key's CPU-bound flood cannot push the others' latency up
//     (turn.go).

// Defaults of the hardening settings.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyIdleTimeout   = 15 * time.Second
	DefaultBodyMinRate       = 1024 // bytes a second, averaged after the grace period
	DefaultBodyGrace         = 10 * time.Second
	DefaultWriteIdleTimeout  = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultMaxConcurrent     = 512
	DefaultMaxQueued         = 1024
	DefaultTurnsPerCPU       = 2
	DefaultQueueTimeout      = 10 * time.Second
	DefaultBodyTimeout       = 60 * time.Second
	DefaultUploadBodyTimeout = 10 * time.Minute
)

// CodeRequestTimeout is answered 408 when a request body arrives too slowly.
const CodeRequestTimeout = "REQUEST_TIMEOUT"

var errBodyTooSlow = errors.New("request body arrived too slowly")

// bodyDeadlineError ends a body that did not arrive whole within its time limit.
type bodyDeadlineError struct{ limit time.Duration }

func (e *bodyDeadlineError) Error() string {
	return "the request body did not arrive within the limit of " + e.limit.String()
}

// bodyCutError is the 408 answered for a body the guard cut off.
func bodyCutError(err error) *engine.Error {
	var de *bodyDeadlineError
	if errors.As(err, &de) {
		return engine.Errorf(CodeRequestTimeout, "%s for a request body; the connection is closed", de.Error())
	}
	return engine.Errorf(CodeRequestTimeout, "the request body arrived too slowly; the connection is closed")
}

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
	if c.MaxQueued == 0 {
		c.MaxQueued = DefaultMaxQueued
	}
	if c.TurnsPerCPU == 0 {
		c.TurnsPerCPU = DefaultTurnsPerCPU
	}
	def(&c.QueueTimeout, DefaultQueueTimeout)
	def(&c.BodyTimeout, DefaultBodyTimeout)
	def(&c.UploadBodyTimeout, DefaultUploadBodyTimeout)
}

// securityHeaders marks every answer nosniff (no uploaded or echoed bytes
// are ever rendered as active content) and gives API answers a CSP that
// allows nothing; the studio UI under /studio sets its own.
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		// Shared value slices, never written to: Set and Add replace
		// or grow a copy (cap 1), so no request allocates them.
		h["X-Content-Type-Options"] = nosniff
		if p := c.Request().URL.Path; p != "/studio" && !strings.HasPrefix(p, "/studio/") {
			h["Content-Security-Policy"], h["Referrer-Policy"] = apiCSP, noReferrer
		}
		return next(c)
	}
}

var (
	nosniff    = []string{"nosniff"}
	apiCSP     = []string{"default-src 'none'; frame-ancestors 'none'"}
	noReferrer = []string{"no-referrer"}
)

// guardIO installs the slow-body guard and the per-write deadline. When
// the guard cut a body off, the handler's error (whatever it made of the
// failed read) is replaced by the 408.
func (s *Server) guardIO(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		r := c.Request()
		orig := c.Response().Writer
		// The controller, the writer and the guard in the request's state
		// (request_state.go).
		st := stateOf(c)
		gs := guardsOf(st)
		*gs = ioGuards{rc: connControl{rw: orig}}
		rc := &gs.rc
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			limit := s.cfg.BodyTimeout
			if s.longBody(r.Method, c.Path()) {
				limit = s.cfg.UploadBodyTimeout
			}
			// The limit counts from the request's start (requestIDs).
			now := startOf(st)
			g := &gs.body
			*g = slowBodyGuard{body: r.Body, rc: rc, c: c, spare: &gs.limit, idle: s.cfg.BodyIdleTimeout,
				minRate: float64(s.cfg.BodyMinRate), grace: s.cfg.BodyGrace, start: now,
				limit: limit, deadline: now.Add(limit)}
			r.Body = g
			defer func() {
				if g.cutErr != nil && err != nil && !c.Response().Committed {
					err = bodyCutError(g.cutErr)
				}
			}()
		}
		dw := &gs.write
		*dw = deadlineWriter{ResponseWriter: orig, rc: rc, idle: s.cfg.WriteIdleTimeout}
		c.Response().Writer = dw
		defer func() {
			// The server flushes after the handler: give that flush its time too.
			dw.finish()
			c.Response().Writer = orig
		}()
		return next(c)
	}
}

// routeKey is a route's method and path template.
type routeKey struct{ method, path string }

// longBody reports whether the route of method and path takes
// UploadBodyTimeout: a scan of a few entries, without building a key
// and hashing it.
func (s *Server) longBody(method, path string) bool {
	for _, k := range s.longBodyRoutes {
		if k.path == path && k.method == method {
			return true
		}
	}
	return false
}

// ioGuards is what guardIO installs for one request, allocated together,
// with the body limit the route's bodyLimit puts over the guard
// (limitGuarded).
type ioGuards struct {
	rc    connControl
	write deadlineWriter
	body  slowBodyGuard
	limit bodyLimitReader
}

// slowBodyGuard enforces the body idle timeout and minimum rate.
type slowBodyGuard struct {
	body io.ReadCloser
	rc   *connControl
	c    echo.Context
	// spare is the body limit allocated with the guard, until taken.
	spare   *bodyLimitReader
	idle    time.Duration
	minRate float64
	grace   time.Duration
	start   time.Time
	n       int64
	done    bool
	// armed: a read set the connection's read deadline.
	armed bool
	// limit is the whole body's time limit, ending at deadline.
	limit    time.Duration
	deadline time.Time
	// cutErr is why the body was cut off (nil while it flows).
	cutErr error
}

// isTimeout reports whether err is a timeout. A body's plain io.EOF is
// told apart before: errors.As moves its target to the heap on every call.
func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}

func (g *slowBodyGuard) Read(p []byte) (int, error) {
	if g.done {
		return g.body.Read(p)
	}
	now := time.Now()
	if !now.Before(g.deadline) {
		return 0, g.cut(&bodyDeadlineError{limit: g.limit})
	}
	// A body already in the lean connection's buffer is read without
	// reading the connection: no deadline can apply, none is set.
	if b, ok := g.body.(interface{ inBuffer() bool }); !ok || !b.inBuffer() {
		dl := now.Add(g.idle)
		if g.deadline.Before(dl) {
			dl = g.deadline
		}
		_ = g.rc.SetReadDeadline(dl)
		g.armed = true
	}
	n, err := g.body.Read(p)
	g.n += int64(n)
	if err != nil {
		if err != io.EOF && isTimeout(err) {
			if !time.Now().Before(g.deadline) {
				return n, g.cut(&bodyDeadlineError{limit: g.limit})
			}
			return n, g.cut(errBodyTooSlow)
		}
		// EOF (or a client error): lift the deadline, so the server's
		// watch for a hang-up does not time out during a long answer.
		g.done = true
		if g.armed {
			_ = g.rc.SetReadDeadline(time.Time{})
		}
		return n, err
	}
	if el := time.Since(g.start); el > g.grace && float64(g.n)/el.Seconds() < g.minRate {
		return n, g.cut(errBodyTooSlow)
	}
	return n, nil
}

// cut ends a too-slow body: later reads fail at once and the connection
// is closed after the 408.
func (g *slowBodyGuard) cut(why error) error {
	g.done = true
	g.cutErr = why
	_ = g.rc.SetReadDeadline(time.Now())
	g.c.Response().Header().Set("Connection", "close")
	return why
}

func (g *slowBodyGuard) Close() error { return g.body.Close() }

// deadlineWriter re-arms the connection's write deadline before writes,
// so each write (not the whole response) is bounded.
type deadlineWriter struct {
	http.ResponseWriter
	rc    *connControl
	idle  time.Duration
	armed time.Time
}

// arm pushes the write deadline to now+idle. It skips the call while at
// least three quarters of idle remain.
func (w *deadlineWriter) arm() {
	if w.idle <= 0 {
		return
	}
	now := time.Now()
	if now.Sub(w.armed) < w.idle/4 {
		return
	}
	w.armed = now
	_ = w.rc.SetWriteDeadline(now.Add(w.idle))
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.arm()
	return w.ResponseWriter.Write(b)
}

// finish arms the deadline for the server's flush after the handler,
// unless it was armed within the last 64th of idle (a non-stream answer's
// one Write a moment before): that flush then has at least 63/64 of idle,
// and the connection's timer is not reset twice in a row.
func (w *deadlineWriter) finish() {
	if w.idle <= 0 {
		return
	}
	if now := time.Now(); w.armed.IsZero() || now.Sub(w.armed) >= w.idle/64 {
		w.armed = now
		_ = w.rc.SetWriteDeadline(now.Add(w.idle))
	}
}

// WriteHeader does not arm: net/http holds the headers until the first
// Write or flush, each of which arms, or until the handler has returned
// (finish).
func (w *deadlineWriter) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(code)
}

// FlushError is found by http.ResponseController (the SSE writer flushes
// each event through it).
func (w *deadlineWriter) FlushError() error {
	w.arm()
	return w.rc.Flush()
}

// Flush implements http.Flusher for code that asserts it directly.
func (w *deadlineWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
