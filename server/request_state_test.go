package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// TestRequestStateOneAllocation: through the whole chain, an
// authenticated route costs what the public /health costs (the request's
// state and its context in one allocation, and one request copy), with
// the principal, the ids and guardIO's guards in that state; before, the
// principal's context and the request copy carrying it came on top (two
// allocations), and the ids and the guards took one each. It also checks
// what the handler sees: the principal through the request's context, and
// no principal when the key is refused for the route's kind.
func TestRequestStateOneAllocation(t *testing.T) {
	// Hearth's own log handler, as main.go's: its access line allocates
	// nothing (slog's path allocates the line's last attributes).
	d := internalDeps(t)
	s, err := New(Config{PublicURL: "http://h", Logger: slog.New(NewLogHandler(io.Discard, false, nil))}, d)
	if err != nil {
		t.Fatal(err)
	}
	acc := d.Accounts
	acc.UseCluster(&engine.Local{})
	ctx := context.Background()
	if _, err := acc.CreateUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	rec, key, err := acc.CreateKey(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	var seen *engine.Principal
	probe := func(c echo.Context) error {
		seen = principal(c)
		return c.NoContent(http.StatusNoContent)
	}
	s.echo.Add(http.MethodGet, "/probe-user", routeHandler(probe, s.authenticate(AuthUser)))
	s.echo.Add(http.MethodGet, "/probe-org", routeHandler(probe, s.authenticate(AuthOrg)))
	s.echo.Add(http.MethodGet, "/probe-public", probe)
	h := s.Handler()
	serve := func(path, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		w := httptest.NewRecorder()
		seen = nil
		h.ServeHTTP(w, req)
		return w
	}
	if w := serve("/probe-user", key); w.Code != http.StatusNoContent || seen == nil || seen.Owner != "alice" || seen.KeyID != rec.ID ||
		len(w.Header()[HeaderRequestID]) == 0 || len(w.Header()[HeaderTraceID]) == 0 {
		t.Fatalf("user route: %d %+v %v", w.Code, seen, w.Header())
	}
	if w := serve("/probe-org", key); w.Code != http.StatusForbidden || seen != nil {
		t.Fatalf("org route with a user key: %d, handler saw %+v", w.Code, seen)
	}
	if w := serve("/probe-public", key); w.Code != http.StatusNoContent || seen != nil {
		t.Fatalf("public route: %d, principal %+v", w.Code, seen)
	}
	if raceDetector {
		t.Skip("the race detector moves values to the heap")
	}
	count := func(path, key string) float64 {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		w := &allocRecorder{header: http.Header{}}
		return testing.AllocsPerRun(200, func() {
			clear(w.header)
			h.ServeHTTP(w, req)
		})
	}
	public, authed := count("/probe-public", ""), count("/probe-user", key)
	t.Logf("public route %.0f allocations, authenticated %.0f", public, authed)
	// The public route's one: the request's state (the request copy
	// carrying its context, the ids and the guards live in it).
	if public > 1 {
		t.Fatalf("a public route costs %.0f allocations through the chain, want 1 (the request copy, ids and guards live in the request's state)", public)
	}
	if authed > public {
		t.Fatalf("authentication costs %.0f allocations a request, want 0 (the principal lives in the request's state)", authed-public)
	}
}

// allocRecorder is a reusable response writer that records nothing.
type allocRecorder struct{ header http.Header }

func (w *allocRecorder) Header() http.Header         { return w.header }
func (w *allocRecorder) WriteHeader(int)             {}
func (w *allocRecorder) Write(b []byte) (int, error) { return len(b), nil }

// TestFirstPipeLimit: a request is charged to a pipe's rate limit once,
// marked in its state without echo's context values (a map a request), or
// in those values when it has no state.
func TestFirstPipeLimit(t *testing.T) {
	e := echo.New()
	st := new(requestState)
	st.Context = context.Background()
	c := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil).WithContext(st), httptest.NewRecorder())
	if !firstPipeLimit(c) || firstPipeLimit(c) || c.Get(ctxPipeLimited) != nil {
		t.Fatal("with a request state: want the first charge only, marked in the state")
	}
	bare := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil), httptest.NewRecorder())
	if !firstPipeLimit(bare) || firstPipeLimit(bare) {
		t.Fatal("without a request state: want the first charge only")
	}
	if raceDetector {
		t.Skip("the race detector moves values to the heap")
	}
	if n := testing.AllocsPerRun(100, func() {
		st.pipeLimited = false
		firstPipeLimit(c)
		firstPipeLimit(c)
	}); n != 0 {
		t.Fatalf("charging a request with a state allocates %.0f times, want 0", n)
	}
}

// TestAccessLogLineUnchanged: the access log's last attributes in a group
// without a key (so that the record keeps all its attributes inline) give
// the line the seven flat attributes gave, with the text and the JSON
// handler; and a request's line has them in that order.
func TestAccessLogLineUnchanged(t *testing.T) {
	noTime := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	for _, h := range []func(*bytes.Buffer) slog.Handler{
		func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, noTime) },
		func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, noTime) },
	} {
		var flat, grouped bytes.Buffer
		head := []slog.Attr{slog.String("request_id", "req_1"), slog.String("trace_id", "trace_1"),
			slog.String("method", "POST"), slog.String("route", "/v1/pipes/run")}
		tail := [3]slog.Attr{slog.Int("status", 200), slog.Int64("bytes", 123), slog.Float64("duration_ms", 1.25)}
		slog.New(h(&flat)).LogAttrs(context.Background(), slog.LevelInfo, "request", append(head, tail[:]...)...)
		slog.New(h(&grouped)).LogAttrs(context.Background(), slog.LevelInfo, "request", append(head, slog.Attr{Value: slog.GroupValue(tail[:]...)})...)
		if flat.String() != grouped.String() {
			t.Fatalf("grouped line\n%s\nflat line\n%s", grouped.String(), flat.String())
		}
	}
	var out bytes.Buffer
	d := internalDeps(t)
	s, err := New(Config{PublicURL: "http://h", Logger: slog.New(slog.NewTextHandler(&out, noTime))}, d)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/health", nil))
	line := out.String()
	want := []string{"msg=request request_id=" + w.Header()[HeaderRequestID][0], "trace_id=" + w.Header()[HeaderTraceID][0],
		"method=GET route=/health status=200 bytes=", " duration_ms="}
	at := 0
	for _, part := range want {
		i := strings.Index(line[at:], part)
		if i < 0 {
			t.Fatalf("access log line %q lacks %q after position %d", line, part, at)
		}
		at += i + len(part)
	}
}
