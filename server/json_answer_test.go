package server

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/labstack/echo/v4"
)

// discardWriter is a ResponseWriter that keeps its header map across
// calls and drops the body, so allocation counts are the answer's own.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

func TestAnswerJSONMatchesEchoJSON(t *testing.T) {
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	v := map[string]any{"output": "<b> & </b>", "n": 1}
	for _, target := range []string{"/v1/pipes/run", "/v1/pipes/run?pretty", "/v1/pipes/run?x=1"} {
		want, got := httptest.NewRecorder(), httptest.NewRecorder()
		if err := e.NewContext(httptest.NewRequest(http.MethodPost, target, nil), want).JSON(201, v); err != nil {
			t.Fatal(err)
		}
		if err := answerJSON(e.NewContext(httptest.NewRequest(http.MethodPost, target, nil), got), 201, v); err != nil {
			t.Fatal(err)
		}
		if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
			t.Errorf("%s: answerJSON gave %d %v %q, c.JSON %d %v %q", target, got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
		}
	}
}

// TestAnswerJSONAllocations checks the two allocations answerJSON saves
// over c.JSON on every run answer (a count, not a timing).
func TestAnswerJSONAllocations(t *testing.T) {
	if raceDetector {
		t.Skip("under the race detector sync.Pool drops buffers at random, and the counts with them")
	}
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	v := struct {
		Output string `json:"output"`
	}{"hi"}
	count := func(answer func(c echo.Context) error) float64 {
		w := &discardWriter{h: http.Header{}}
		req := httptest.NewRequest(http.MethodPost, "/v1/pipes/run", http.NoBody)
		return testing.AllocsPerRun(100, func() {
			clear(w.h)
			c := e.AcquireContext()
			c.Reset(req, w)
			if err := answer(c); err != nil {
				t.Fatal(err)
			}
			e.ReleaseContext(c)
		})
	}
	echoJSON := count(func(c echo.Context) error { return c.JSON(200, v) })
	ours := count(func(c echo.Context) error { return answerJSON(c, 200, v) })
	if ours > echoJSON-2 {
		t.Fatalf("answerJSON allocates %.0f times, c.JSON %.0f: want at least 2 fewer", ours, echoJSON)
	}
}

// TestEventWriterStartHeaders checks a stream's headers and that setting
// them allocates nothing (shared values; a count, not a timing).
func TestEventWriterStartHeaders(t *testing.T) {
	e := echo.New()
	w := &discardWriter{h: http.Header{}}
	req := httptest.NewRequest(http.MethodPost, "/v1/pipes/run", http.NoBody)
	c := e.NewContext(req, w)
	n := testing.AllocsPerRun(100, func() {
		clear(w.h)
		c.Response().Committed = false
		ew := eventWriter{c: c}
		ew.start()
	})
	want := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}, "Cache-Control": {"no-cache"}, "X-Accel-Buffering": {"no"}}
	if !reflect.DeepEqual(w.h, want) {
		t.Errorf("headers %v, want %v", w.h, want)
	}
	if n > 0 {
		t.Errorf("starting a stream allocates %.0f times, want 0", n)
	}
}
