package server

import (
	"context"
	"net/http"
	"net/http/httptest"
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
	s, acc := newInternal(t)
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
	// The public route's three: the request's state, the request copy
	// carrying its context and the access log's attributes.
	if public > 3 {
		t.Fatalf("a public route costs %.0f allocations through the chain, want 3 (the ids and guards live in the request's state)", public)
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
