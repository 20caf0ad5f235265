package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// slogAccessLine is the line slog's own handler writes for l, as the
// access log wrote it before the direct path: a record at level Info with
// the message "request" and l's seven attributes.
func slogAccessLine(t testing.TB, json bool, l *accessLine) string {
	t.Helper()
	var b bytes.Buffer
	var h slog.Handler = slog.NewTextHandler(&b, nil)
	if json {
		h = slog.NewJSONHandler(&b, nil)
	}
	r := slog.NewRecord(l.time, slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("request_id", l.requestID), slog.String("trace_id", l.traceID),
		slog.String("method", l.method), slog.String("route", l.route), slog.Int("status", l.status),
		slog.Int64("bytes", l.bytes), slog.Float64("duration_ms", l.durationMS))
	if err := h.Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkAccessLine writes l through the direct path of a text and a JSON
// LogHandler: a line it writes must be slog's, byte for byte, and a line
// it declines must leave the writer untouched.
func checkAccessLine(t testing.TB, l *accessLine) (direct bool) {
	t.Helper()
	for _, json := range []bool{false, true} {
		var b bytes.Buffer
		ok, err := NewLogHandler(&b, json, nil).writeAccess(l)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if b.Len() != 0 {
				t.Fatalf("declined line written: %q", b.String())
			}
			continue
		}
		direct = true
		if want := slogAccessLine(t, json, l); b.String() != want {
			t.Fatalf("json=%v: direct line\n%q\nslog's line\n%q", json, b.String(), want)
		}
	}
	return direct
}

// TestAccessLineMatchesSlog: the access log's direct path writes what
// slog's text and JSON handlers write, and declines values they quote,
// escape or format otherwise.
func TestAccessLineMatchesSlog(t *testing.T) {
	at := time.Date(2026, 11, 24, 20, 37, 59, 123456789, time.UTC)
	base := accessLine{time: at, requestID: "req_0123456789abcdefghij", traceID: "trace_0123456789abcdefghij",
		method: "POST", route: "/v1/pipes/run", status: 200, bytes: 1234, durationMS: 1.25}
	direct := []func(*accessLine){
		func(*accessLine) {},
		func(l *accessLine) { l.time = at.Truncate(time.Second) },                          // no fraction
		func(l *accessLine) { l.time = at.Add(-123 * time.Millisecond) },                   // .000
		func(l *accessLine) { l.time = at.In(time.FixedZone("x", -7*3600-30*60)) },         // offset
		func(l *accessLine) { l.time = time.Now() },                                        // monotonic
		func(l *accessLine) { l.route, l.method = "/v1/pipes/:name/versions/*", "DELETE" }, // template
		func(l *accessLine) { l.traceID = "0af7651916cd43dd8448eb211c80319c" },             // OTel
		func(l *accessLine) { l.status, l.bytes, l.durationMS = 0, 0, 0 },
		func(l *accessLine) { l.bytes, l.durationMS = -1, 0.001 },
		func(l *accessLine) { l.durationMS = 1234567.891 }, // 'g' takes an exponent
		func(l *accessLine) { l.durationMS = 100000 },
		func(l *accessLine) { l.status, l.bytes = 504, math.MaxInt64 },
	}
	for i, f := range direct {
		l := base
		f(&l)
		if !checkAccessLine(t, &l) {
			t.Fatalf("case %d: the direct path declined %+v", i, l)
		}
	}
	declined := []func(*accessLine){
		func(l *accessLine) { l.route = "" },
		func(l *accessLine) { l.route = "/a b" },
		func(l *accessLine) { l.route = "/a=b" },
		func(l *accessLine) { l.route = `/a"b` },
		func(l *accessLine) { l.route = "/ä" },
		func(l *accessLine) { l.method = "M\x00" },
		func(l *accessLine) { l.requestID = `req\1` },
		func(l *accessLine) { l.traceID = "<t>" },
		func(l *accessLine) { l.durationMS = math.NaN() },
		func(l *accessLine) { l.durationMS = math.Inf(1) },
		func(l *accessLine) { l.time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
	}
	for i, f := range declined {
		l := base
		f(&l)
		var b bytes.Buffer
		if ok, _ := NewLogHandler(&b, false, nil).writeAccess(&l); ok {
			t.Fatalf("case %d: the direct path wrote %q", i, b.String())
		}
	}
	// The JSON handler formats floats under 1e-6 with an exponent: slog's.
	l := base
	l.durationMS = 1e-7
	var b bytes.Buffer
	if ok, _ := NewLogHandler(&b, true, nil).writeAccess(&l); ok {
		t.Fatalf("JSON line with a tiny float written directly: %q", b.String())
	}
	checkAccessLine(t, &l)
}

// FuzzAccessLine: whatever the values, a line the direct path writes is
// slog's line.
func FuzzAccessLine(f *testing.F) {
	f.Add("req_1", "trace_1", "POST", "/v1/agent/run", 200, int64(12), 1.25, int64(1764016679123456789))
	f.Add("", "t", "GET", "/a b", 404, int64(-1), 0.0, int64(0))
	f.Fuzz(func(t *testing.T, rid, tid, method, route string, status int, n int64, d float64, unixNano int64) {
		l := accessLine{time: time.Unix(0, unixNano), requestID: rid, traceID: tid, method: method, route: route,
			status: status, bytes: n, durationMS: d}
		checkAccessLine(t, &l)
	})
}

// countingHandler counts the access log records that reach slog.
type countingHandler struct {
	slog.Handler
	requests *atomic.Int32
}

func (h countingHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "request" {
		h.requests.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

// TestAccessLogDirectPath: with Hearth's own handler, a request's access
// line is written by the direct path (no record reaches slog) with its
// values in order, and a line with a value slog would quote still goes
// through slog.
func TestAccessLogDirectPath(t *testing.T) {
	var out bytes.Buffer
	lh := NewLogHandler(&out, false, nil)
	var viaSlog atomic.Int32
	lh.Handler = countingHandler{Handler: lh.Handler, requests: &viaSlog}
	s, err := New(Config{PublicURL: "http://h", Logger: slog.New(lh)}, internalDeps(t))
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/health", nil))
	if viaSlog.Load() != 0 {
		t.Fatalf("the access line of GET /health went through slog: %q", out.String())
	}
	line := out.String()
	want := []string{"time=", " level=INFO msg=request request_id=" + w.Header()[HeaderRequestID][0],
		" trace_id=" + w.Header()[HeaderTraceID][0], " method=GET route=/health status=200 bytes=", " duration_ms=", "\n"}
	at := 0
	for _, part := range want {
		i := strings.Index(line[at:], part)
		if i < 0 {
			t.Fatalf("access log line %q lacks %q after position %d", line, part, at)
		}
		at += i + len(part)
	}
	if at != len(line) {
		t.Fatalf("more than one line: %q", line)
	}
	out.Reset()
	odd := httptest.NewRequest(http.MethodGet, "/health", nil)
	odd.Method = "GET\x01"
	s.Handler().ServeHTTP(httptest.NewRecorder(), odd)
	if viaSlog.Load() != 1 || !strings.Contains(out.String(), `method="GET\x01"`) {
		t.Fatalf("a method slog quotes: %d lines through slog, log %q", viaSlog.Load(), out.String())
	}
}

// BenchmarkAccessLine: one access log line through the direct path and
// through slog's Logger, as the access log wrote it before, to io.Discard.
func BenchmarkAccessLine(b *testing.B) {
	l := accessLine{time: time.Now(), requestID: "req_0123456789abcdefghij", traceID: "trace_0123456789abcdefghij",
		method: "POST", route: "/v1/agent/run", status: 200, bytes: 512, durationMS: 0.412}
	for _, json := range []bool{false, true} {
		h := NewLogHandler(io.Discard, json, nil)
		b.Run(map[bool]string{false: "text", true: "json"}[json]+"/direct", func(b *testing.B) {
			for b.Loop() {
				l.time = time.Now()
				_, _ = h.writeAccess(&l)
			}
		})
		log := slog.New(h.Handler)
		b.Run(map[bool]string{false: "text", true: "json"}[json]+"/slog", func(b *testing.B) {
			var tail [3]slog.Attr
			for b.Loop() {
				tail[0], tail[1], tail[2] = slog.Int("status", l.status), slog.Int64("bytes", l.bytes), slog.Float64("duration_ms", l.durationMS)
				log.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("request_id", l.requestID),
					slog.String("trace_id", l.traceID), slog.String("method", l.method), slog.String("route", l.route),
					slog.Attr{Value: slog.GroupValue(tail[:]...)})
			}
		})
	}
}
