package server

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// TestBodyTimeLimitCountsFromRequestStart: the body's time limit runs from
// when requestIDs took the request, not from when guardIO installed the
// guard, so time spent in the layers between counts against it.
func TestBodyTimeLimitCountsFromRequestStart(t *testing.T) {
	const limit = 50 * time.Millisecond
	s, _ := newLimited(t, Config{BodyTimeout: limit})
	read := func(c echo.Context) error {
		_, err := io.ReadAll(c.Request().Body)
		return err
	}
	slowLayer := func(c echo.Context) error {
		time.Sleep(2 * limit)
		return s.guardIO(read)(c)
	}
	req := httptest.NewRequest(http.MethodPost, "/v1/pipes/run", strings.NewReader(`{"name":"p"}`))
	c := echo.New().NewContext(req, httptest.NewRecorder())
	err := s.requestIDs(slowLayer)(c)
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Code != CodeRequestTimeout || !strings.Contains(ee.Message, limit.String()) {
		t.Fatalf("a body read %v after the request's start, limit %v: got %v, want the 408 of its time limit", 2*limit, limit, err)
	}
}

// slowLog is a log writer that takes a while for every line.
type slowLog struct {
	mu    sync.Mutex
	lines []string
	delay time.Duration
}

func (w *slowLog) Write(p []byte) (int, error) {
	time.Sleep(w.delay)
	w.mu.Lock()
	w.lines = append(w.lines, string(p))
	w.mu.Unlock()
	return len(p), nil
}

// TestRequestMetricSpansTheAccessLogLine: the request duration metric and
// the access log line's duration_ms measure the same span (one start, one
// end), so a slow log write is in neither.
func TestRequestMetricSpansTheAccessLogLine(t *testing.T) {
	w := &slowLog{delay: 30 * time.Millisecond}
	s, err := New(Config{PublicURL: "http://h", Logger: slog.New(NewLogHandler(w, false, nil))}, internalDeps(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("health: %d", rec.Code)
	}
	var logged float64 = -1
	w.mu.Lock()
	for _, l := range w.lines {
		if strings.Contains(l, " route=/health ") {
			_, v, _ := strings.Cut(strings.TrimSpace(l), " duration_ms=")
			logged, _ = strconv.ParseFloat(v, 64)
		}
	}
	w.mu.Unlock()
	if logged < 0 {
		t.Fatalf("no access log line for /health in %q", w.lines)
	}
	mrec := httptest.NewRecorder()
	s.metrics.Handler().ServeHTTP(mrec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	measured := -1.0
	sc := bufio.NewScanner(mrec.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), `hearth_http_request_duration_seconds_sum{method="GET",route="/health"} `); ok {
			measured, _ = strconv.ParseFloat(v, 64)
		}
	}
	if measured < 0 {
		t.Fatal("no request duration for GET /health in the metrics")
	}
	// duration_ms is truncated to microseconds: the two agree within one.
	if d := measured*1000 - logged; d < 0 || d >= 0.001 {
		t.Fatalf("metric %.6f ms, access log %.3f ms: they should measure the same span", measured*1000, logged)
	}
}

// TestKnownMethods: the request counter labels the seven methods Hearth
// serves as they are and every other (WebDAV's, a lowercase one) "other".
func TestKnownMethods(t *testing.T) {
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		if !knownMethod(m) {
			t.Errorf("%s counted as other", m)
		}
	}
	for _, m := range []string{"PROPFIND", "get", "CONNECT", "TRACE", ""} {
		if knownMethod(m) {
			t.Errorf("%q labelled as it is", m)
		}
	}
}

// BenchmarkStateSizeAllocs reports the size of the state every request
// allocates (requestState) and of the memory of a pipe run (pipeRun): the
// allocator rounds each up to its size class (runtime/sizeclasses.go),
// so a field that crosses 896 or 2304 bytes makes every request or run
// pay the next class (1024, 2688). A report, not a check: make bench
// prints it beside the allocations per route.
func BenchmarkStateSizeAllocs(b *testing.B) {
	for range b.N {
		_ = unsafe.Sizeof(requestState{})
	}
	b.ReportMetric(float64(unsafe.Sizeof(requestState{})), "bytes/requestState")
	b.ReportMetric(float64(unsafe.Sizeof(pipeRun{})), "bytes/pipeRun")
}
