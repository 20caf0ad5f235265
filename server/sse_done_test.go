package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// flushRecorder keeps what is written and supports Flush.
type flushRecorder struct {
	h   http.Header
	buf bytes.Buffer
}

func (w *flushRecorder) Header() http.Header         { return w.h }
func (w *flushRecorder) Write(b []byte) (int, error) { return w.buf.Write(b) }
func (w *flushRecorder) WriteHeader(int)             {}
func (w *flushRecorder) Flush()                      {}

// TestSSEDone: the closing [DONE] event is the same bytes on every stream,
// written from one shared slice, and stays unchanged by being written.
func TestSSEDone(t *testing.T) {
	w := &flushRecorder{h: http.Header{}}
	c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", http.NoBody), w)
	ew := newSSEWriter(c)
	if err := ew.Done(); err != nil || w.buf.String() != "data: [DONE]\r\n\r\n" {
		t.Fatalf("Done wrote %q, %v", w.buf.String(), err)
	}
	if err := ew.Done(); err != nil || w.buf.String() != "data: [DONE]\r\n\r\ndata: [DONE]\r\n\r\n" {
		t.Fatalf("Done wrote %q, %v", w.buf.String(), err)
	}
	if string(sseDone) != "data: [DONE]\r\n\r\n" {
		t.Fatalf("sseDone changed: %q", sseDone)
	}
}

// BenchmarkSSEDoneAllocs: writing the closing [DONE] event from the shared
// slice allocates nothing (Go 1.26).
func BenchmarkSSEDoneAllocs(b *testing.B) {
	w := &flushRecorder{h: http.Header{}}
	ew := newSSEWriter(echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", http.NoBody), w))
	b.ReportAllocs()
	for b.Loop() {
		w.buf.Reset()
		if err := ew.Done(); err != nil {
			b.Fatal(err)
		}
	}
}
