package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// TestRouteHandlerOrder: routeHandler runs the route's middleware
// outermost first around the handler, and wraps each layer once, when the
// route is added, not on every request.
func TestRouteHandlerOrder(t *testing.T) {
	var calls []string
	wraps := 0
	layer := func(name string) echo.MiddlewareFunc {
		return func(next echo.HandlerFunc) echo.HandlerFunc {
			wraps++
			return func(c echo.Context) error {
				calls = append(calls, name+">")
				err := next(c)
				calls = append(calls, "<"+name)
				return err
			}
		}
	}
	h := routeHandler(func(echo.Context) error { calls = append(calls, "handler"); return nil },
		layer("body"), layer("auth"), layer("rate"))
	e := echo.New()
	for range 3 {
		calls = calls[:0]
		c := e.NewContext(httptest.NewRequest("GET", "/", nil), httptest.NewRecorder())
		if err := h(c); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(calls, " "); got != "body> auth> rate> handler <rate <auth <body" {
			t.Fatalf("order %q", got)
		}
	}
	if wraps != 3 {
		t.Fatalf("%d wraps for three layers and three requests, want 3", wraps)
	}
}

// TestRouteMiddlewareOfServer: the routes New adds carry their middleware
// in order. The body limit comes first (an oversized body is refused
// before its key is looked at), authentication before the rate limit (the
// limiter sees the key's principal, so a key's second request in a minute
// is refused), and the handler reads the principal from the request's
// context.
func TestRouteMiddlewareOfServer(t *testing.T) {
	s, acc := newLimited(t, Config{RateLimitPerKey: 1, RateLimitBurst: 1, MaxBodyBytes: 1 << 10})
	ctx := context.Background()
	if _, err := acc.CreateUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	_, key, err := acc.CreateKey(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, key, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec
	}
	big := `{"name":"` + strings.Repeat("x", 2<<10) + `"}`
	for _, k := range []string{"", "not-a-key"} {
		if r := do(http.MethodPost, "/v1/pipes", k, big); r.Code != http.StatusRequestEntityTooLarge ||
			!strings.Contains(r.Body.String(), engine.CodePayloadTooLarge) {
			t.Fatalf("oversized body, key %q: %d %s", k, r.Code, r.Body)
		}
	}
	// A body without a length is cut off at the limit as it is read (by
	// the handler's decoding, after the key's rate limit: another key).
	_, chunkKey, _ := acc.CreateKey(ctx, "alice", "")
	req := httptest.NewRequest(http.MethodPost, "/v1/pipes", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+chunkKey)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), engine.CodePayloadTooLarge) {
		t.Fatalf("oversized body without a length: %d %s", rec.Code, rec.Body)
	}
	if r := do(http.MethodGet, "/v1/pipes", "", ""); r.Code != http.StatusUnauthorized {
		t.Fatalf("no key: %d %s", r.Code, r.Body)
	}
	if r := do(http.MethodGet, "/v1/pipes", key, ""); r.Code != http.StatusOK || r.Header().Get("RateLimit-Limit") != "1" {
		t.Fatalf("first request: %d %v %s", r.Code, r.Header(), r.Body)
	}
	if r := do(http.MethodGet, "/v1/pipes", key, ""); r.Code != http.StatusTooManyRequests {
		t.Fatalf("second request of the key: %d %s", r.Code, r.Body)
	}
	// The principal lives in the request's context only.
	var seen *engine.Principal
	s.echo.GET("/t/who", func(c echo.Context) error {
		seen = principal(c)
		if c.Get("principal") != nil {
			t.Error("principal stored in echo's context values")
		}
		return c.NoContent(http.StatusNoContent)
	}, s.authenticate(AuthOwner))
	_, key2, _ := acc.CreateKey(ctx, "alice", "")
	if r := do(http.MethodGet, "/t/who", key2, ""); r.Code != http.StatusNoContent || seen == nil || seen.Owner != "alice" {
		t.Fatalf("principal: %d %+v", r.Code, seen)
	}
}
