package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestAdmitPipeHeldByTheBody: a run's admitter is nil without rate limits
// or budgets, and otherwise the value the caller holds
// (TestPipeRateLimitAndRunMetrics checks what it refuses, through the
// routes).
func TestAdmitPipeHeldByTheBody(t *testing.T) {
	e := echo.New()
	c := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil), httptest.NewRecorder())
	var held pipeAdmitter
	if a := (&Server{}).admitPipe(c, &held); a != nil {
		t.Fatalf("admitter %v without limits or budgets", a)
	}
	s := &Server{pipeLimits: newLimiter(60, 1)}
	if a := s.admitPipe(c, &held); a != &held || held.s != s || held.c != c {
		t.Fatalf("admitter %v is not the held one", a)
	}
	if a, ok := s.admitPipe(c, nil).(*pipeAdmitter); !ok || a == &held || a.s != s {
		t.Fatalf("admitter without a held value: %v", a)
	}
}

// BenchmarkAdmitPipeAllocs: admitting a run with a held admitter allocates
// nothing (Go 1.26).
func BenchmarkAdmitPipeAllocs(b *testing.B) {
	e := echo.New()
	c := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil), httptest.NewRecorder())
	var held pipeAdmitter
	s := &Server{pipeLimits: newLimiter(60, 1)}
	b.ReportAllocs()
	for b.Loop() {
		_ = s.admitPipe(c, &held)
	}
}
