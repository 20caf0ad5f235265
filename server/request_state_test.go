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

// probeServer is a server with Hearth's own log handler (as main.go's:
// its access line allocates nothing) and three probe routes, for a user
// key, an org key and no key, which keep the principal the handler saw in
// *seen; it returns the server's handler, alice's key and its id.
func probeServer(tb testing.TB, seen **engine.Principal) (h http.Handler, keyID, key string) {
	d := internalDeps(tb)
	s, err := New(Config{PublicURL: "http://h", Logger: slog.New(NewLogHandler(io.Discard, false, nil))}, d)
	if err != nil {
		tb.Fatal(err)
	}
	acc := d.Accounts
	acc.UseCluster(&engine.Local{})
	ctx := context.Background()
	if _, err := acc.CreateUser(ctx, "alice"); err != nil {
		tb.Fatal(err)
	}
	rec, key, err := acc.CreateKey(ctx, "alice", "")
	if err != nil {
		tb.Fatal(err)
	}
	probe := func(c echo.Context) error {
		*seen = principal(c)
		return c.NoContent(http.StatusNoContent)
	}
	s.echo.Add(http.MethodGet, "/probe-user", routeHandler(probe, s.authenticate(AuthUser)))
	s.echo.Add(http.MethodGet, "/probe-org", routeHandler(probe, s.authenticate(AuthOrg)))
	s.echo.Add(http.MethodGet, "/probe-public", probe)
	return s.Handler(), rec.ID, key
}

// TestRequestStatePrincipal: through the whole chain, the handler of an
// authenticated route sees the principal through the request's context
// (it lives in the request's state with the ids and guardIO's guards), and
// no principal when the key is refused for the route's kind or the route
// is public.
func TestRequestStatePrincipal(t *testing.T) {
	var seen *engine.Principal
	h, keyID, key := probeServer(t, &seen)
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
	if w := serve("/probe-user", key); w.Code != http.StatusNoContent || seen == nil || seen.Owner != "alice" || seen.KeyID != keyID ||
		len(w.Header()[HeaderRequestID]) == 0 || len(w.Header()[HeaderTraceID]) == 0 {
		t.Fatalf("user route: %d %+v %v", w.Code, seen, w.Header())
	}
	if w := serve("/probe-org", key); w.Code != http.StatusForbidden || seen != nil {
		t.Fatalf("org route with a user key: %d, handler saw %+v", w.Code, seen)
	}
	if w := serve("/probe-public", key); w.Code != http.StatusNoContent || seen != nil {
		t.Fatalf("public route: %d, principal %+v", w.Code, seen)
	}
}

// BenchmarkRequestStateAllocs: through the whole chain, an authenticated
// route costs what a public one costs, one allocation on Go 1.26 (the
// request's state and its context, and one request copy), with the
// principal, the ids and guardIO's guards in that state; before, the
// principal's context and the request copy carrying it came on top (two
// allocations), and the ids and the guards took one each.
func BenchmarkRequestStateAllocs(b *testing.B) {
	var seen *engine.Principal
	h, _, key := probeServer(b, &seen)
	for _, c := range []struct{ name, path, key string }{{"public", "/probe-public", ""}, {"authenticated", "/probe-user", key}} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			if c.key != "" {
				req.Header.Set("Authorization", "Bearer "+c.key)
			}
			w := &allocRecorder{header: http.Header{}}
			h.ServeHTTP(w, req)
			b.ReportAllocs()
			for b.Loop() {
				clear(w.header)
				h.ServeHTTP(w, req)
			}
		})
	}
}

// allocRecorder is a reusable response writer that records nothing.
type allocRecorder struct{ header http.Header }

func (w *allocRecorder) Header() http.Header         { return w.header }
func (w *allocRecorder) WriteHeader(int)             {}
func (w *allocRecorder) Write(b []byte) (int, error) { return len(b), nil }

// TestFirstPipeLimit: a request is charged to a pipe's rate limit once,
// marked in its state (not in echo's context values), or in those values
// when it has no state.
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
}

// BenchmarkFirstPipeLimitAllocs: charging a request with a state to its
// pipe's rate limit allocates nothing (Go 1.26): the mark lives in the
// state, not in echo's context values (a map a request).
func BenchmarkFirstPipeLimitAllocs(b *testing.B) {
	e := echo.New()
	st := new(requestState)
	st.Context = context.Background()
	c := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil).WithContext(st), httptest.NewRecorder())
	b.ReportAllocs()
	for b.Loop() {
		st.pipeLimited = false
		firstPipeLimit(c)
		firstPipeLimit(c)
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
