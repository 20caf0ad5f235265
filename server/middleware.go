package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Response headers set on every answer.
const (
	HeaderRequestID = "lb-request-id"
	HeaderTraceID   = "lb-trace-id"
	HeaderThreadID  = "lb-thread-id"
)

// normalizePath folds duplicate slashes (an SDK baseUrl with a trailing
// slash yields "//v1/...") and drops a trailing slash.
func normalizePath(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if p := cleanPath(r.URL.Path); p != r.URL.Path {
			r.URL.Path = p
			if r.URL.RawPath != "" {
				r.URL.RawPath = cleanPath(r.URL.RawPath)
			}
		}
		return next(c)
	}
}

func cleanPath(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	}
	return p
}

// requestIDs gives every response an lb-request-id and an lb-trace-id and,
// with Config.IDs, puts the request's IDSource in its context first. With
// Config.Tracer the request is served inside a span whose trace id is the
// lb-trace-id (otel.go).
func (s *Server) requestIDs(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		ctx := r.Context()
		if s.cfg.IDs != nil {
			ctx = engine.WithIDs(ctx, s.cfg.IDs())
		}
		// One allocation for the request's context, the request copy
		// carrying it, its ids and its guards (request_state.go).
		st := new(requestState)
		st.Context = ctx
		st.start = time.Now()
		c.SetRequest(st.carry(r))
		h := c.Response().Header()
		if s.cfg.Tracer != nil {
			setHeader(h, HeaderRequestID, engine.NewPrefixedID(ctx, "req_", 20))
			return s.traced(c, next)
		}
		ids := &st.ids // the header values and their bytes
		ids.vals[0], ids.vals[1] = engine.NewPrefixedIDPairIn(ctx, ids.buf[:], "req_", 20, "trace_", 20)
		h[HeaderRequestID], h[HeaderTraceID] = ids.vals[0:1:1], ids.vals[1:2:2]
		return next(c)
	}
}

// idHeaders holds a request's lb-request-id and lb-trace-id header values
// and the bytes of both ids ("req_" and "trace_", 20 characters each).
type idHeaders struct {
	vals [2]string
	buf  [50]byte
}

// recoverPanics turns a handler panic into a JSON 500; the server keeps serving.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = &engine.Error{Code: engine.CodeInternal, Message: "internal server error",
					Err: fmt.Errorf("panic: %v\n%s", r, debug.Stack())}
			}
		}()
		return next(c)
	}
}

// accessLog writes one structured line per request. It never logs headers,
// so keys cannot leak through it.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	direct, _ := s.log.Handler().(*LogHandler)
	return func(c echo.Context) error {
		st := stateOf(c)
		start := startOf(st)
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		if !s.log.Enabled(c.Request().Context(), slog.LevelInfo) {
			return nil
		}
		// The line's time is the request's end for observe too.
		now := time.Now()
		if st != nil {
			st.end = now
		}
		if direct != nil {
			// Hearth's own handler: the same line without slog's record,
			// its caller lookup and its value walk (loghandler.go).
			line := accessLine{time: now, requestID: headerValue(c.Response().Header(), HeaderRequestID),
				traceID: headerValue(c.Response().Header(), HeaderTraceID), method: c.Request().Method,
				route: c.Path(), status: c.Response().Status, bytes: c.Response().Size,
				durationMS: float64(now.Sub(start).Microseconds()) / 1000}
			if ok, _ := direct.writeAccess(&line); ok {
				return nil
			}
		}
		// LogAttrs with typed attributes: no boxing of the values into
		// interfaces and no argument slice on the heap. A record keeps
		// five attributes inline and allocates for more, so the last
		// three go in a group without a key, which handlers inline: the
		// same line. Their array is the one allocation of this path, which
		// only a handler other than Hearth's own or a value slog quotes
		// takes: the request's state does not carry room for it.
		tail := new([3]slog.Attr)
		tail[0] = slog.Int("status", c.Response().Status)
		tail[1] = slog.Int64("bytes", c.Response().Size)
		tail[2] = slog.Float64("duration_ms", float64(now.Sub(start).Microseconds())/1000)
		s.log.LogAttrs(c.Request().Context(), slog.LevelInfo, "request",
			slog.String("request_id", headerValue(c.Response().Header(), HeaderRequestID)),
			slog.String("trace_id", headerValue(c.Response().Header(), HeaderTraceID)),
			slog.String("method", c.Request().Method),
			slog.String("route", c.Path()),
			slog.Attr{Value: slog.GroupValue(tail[:]...)},
		)
		return nil
	}
}

// openAIClientHeaders are the request headers the official openai SDKs
// send from a browser (the openai npm package 6.x: its X-Stainless-*
// platform and retry headers, and OpenAI-Organization / OpenAI-Project
// when set), and those the Anthropic SDKs send to /anthropic/v1 (x-api-key,
// anthropic-version, anthropic-beta), so a preflight lets them through.
// Hearth ignores the values of the platform headers.
var openAIClientHeaders = []string{
	"X-Stainless-Arch", "X-Stainless-Lang", "X-Stainless-OS", "X-Stainless-Package-Version",
	"X-Stainless-Retry-Count", "X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Timeout",
	"OpenAI-Organization", "OpenAI-Project",
	"X-Api-Key", "Anthropic-Version", "Anthropic-Beta", "Anthropic-Dangerous-Direct-Browser-Access",
}

func cors() echo.MiddlewareFunc { return corsFast(corsConfig()) }

// corsConfig is the CORS policy: any origin, no credentials.
func corsConfig() middleware.CORSConfig {
	return middleware.CORSConfig{
		AllowOrigins: []string{"*"},
		AllowMethods: []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions},
		AllowHeaders: append([]string{"Authorization", "Content-Type", "LB-LLM-Key", "LB-WEB-SEARCH-KEY", "LB-CRAWL-KEY",
			HeaderFallbackModels, HeaderThreadRequest, headerCacheRequest, "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"}, openAIClientHeaders...),
		ExposeHeaders: []string{HeaderWarning, HeaderThreadID, HeaderRequestID, HeaderTraceID, HeaderRetrievalMode, HeaderNextCursor, HeaderModel, HeaderBudgetReset, HeaderTokenCount,
			HeaderCache, HeaderCacheMatch, HeaderCacheSimilarity, "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"},
		MaxAge: 600,
	}
}

// bodyLimit caps the request body; a larger body is a 413.
func bodyLimit(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.ContentLength > limit {
				return engine.Errorf(engine.CodePayloadTooLarge, "request body is %d bytes; the limit is %d", r.ContentLength, limit)
			}
			switch {
			case r.Body == nil || r.Body == http.NoBody:
			case limitGuarded(r, limit):
			default:
				r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
			}
			return next(c)
		}
	}
}

// setHeader sets a header under its exact lowercase name: Go would
// canonicalise "lb-thread-id" to "Lb-Thread-Id", and some HTTP clients
// (Python's requests turned into a dict) look names up case-sensitively.
func setHeader(h http.Header, name, value string) {
	h[name] = []string{value}
}

// headerValue reads a header set by setHeader.
func headerValue(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return h.Get(name)
}
