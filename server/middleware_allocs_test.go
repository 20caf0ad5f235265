package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMiddlewareChainAllocations bounds what the middleware chain costs a
// request (request and trace ids, security headers, metrics, access log,
// guards): GET /health through the whole chain, counted in allocations
// (a count, not a timing). The bound is today's figure plus a little, so
// a change that adds per-request allocations to every route shows here.
func TestMiddlewareChainAllocations(t *testing.T) {
	ts := servertest.Start(t)
	h := ts.Handler()
	req := httptest.NewRequest(http.MethodGet, "/health", nil)
	var rec *httptest.ResponseRecorder
	got := testing.AllocsPerRun(200, func() {
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	})
	if rec.Code != 200 || len(rec.Header()["lb-request-id"]) == 0 || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("health: %d %v", rec.Code, rec.Header())
	}
	t.Logf("GET /health: %.0f allocations", got)
	budget := chainAllocBudget
	if raceEnabled {
		budget = chainAllocBudgetRace
	}
	if got > float64(budget) {
		t.Fatalf("GET /health allocates %.0f times through the middleware chain, budget %d", got, budget)
	}
}

// The budgets are the measured counts (Go 1.26: 20, and 27 under the race
// detector, which moves some values to the heap) and one more. The
// access log's record keeps its attributes inline (one allocation less). The
// LB-Fault header is read under its canonical name (one allocation less
// than Header.Get canonicalising it on every request). The
// global middleware is composed once (chain.go); echo's own ServeHTTP
// wrapped it around every request, 11 allocations more. The request and
// trace ids share one allocation with their header values and the
// request copy carrying the request's context, guardIO's
// guards one with the connection control (whose unsupported-writer error
// is shared: the recorder here has no deadlines), a GET's empty body
// gets no byte limit, CORS sets shared header values and the status
// label of the request counter is made once.
const chainAllocBudget, chainAllocBudgetRace = 21, 28
