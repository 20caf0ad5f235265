package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// connWriter records what reached it; its optional methods depend on the
// wrapper around it.
type connWriter struct {
	http.ResponseWriter
	calls []string
}

func (w *connWriter) SetReadDeadline(time.Time) error { w.calls = append(w.calls, "read"); return nil }
func (w *connWriter) SetWriteDeadline(time.Time) error {
	w.calls = append(w.calls, "write")
	return nil
}
func (w *connWriter) FlushError() error { w.calls = append(w.calls, "flusherror"); return nil }

// plainFlusher only flushes.
type plainFlusher struct {
	http.ResponseWriter
	flushed int
}

func (w *plainFlusher) Flush() { w.flushed++ }

// wrapper hides the writer under it behind Unwrap.
type wrapper struct{ http.ResponseWriter }

func (w wrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestConnControlAsResponseController: connControl reaches the same
// methods through the same Unwrap chains as http.ResponseController, and
// a writer that cannot answers an error that is http.ErrNotSupported.
func TestConnControlAsResponseController(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	for _, depth := range []int{0, 1, 3} {
		mine, theirs := &connWriter{}, &connWriter{}
		var a, b http.ResponseWriter = mine, theirs
		for range depth {
			a, b = wrapper{a}, wrapper{b}
		}
		cc, rc := connControl{rw: a}, http.NewResponseController(b)
		for _, step := range []func() (error, error){
			func() (error, error) { return cc.SetReadDeadline(at), rc.SetReadDeadline(at) },
			func() (error, error) { return cc.SetWriteDeadline(at), rc.SetWriteDeadline(at) },
			func() (error, error) { return cc.Flush(), rc.Flush() },
		} {
			if e1, e2 := step(); e1 != nil || e2 != nil {
				t.Fatalf("depth %d: %v, %v", depth, e1, e2)
			}
		}
		if len(mine.calls) != 3 || len(theirs.calls) != 3 || mine.calls[2] != theirs.calls[2] {
			t.Fatalf("depth %d: %v, ResponseController %v", depth, mine.calls, theirs.calls)
		}
	}
	f := &plainFlusher{}
	if err := (connControl{rw: wrapper{f}}).Flush(); err != nil || f.flushed != 1 {
		t.Fatalf("Flusher: %v, flushed %d", err, f.flushed)
	}
	rec := httptest.NewRecorder() // flushes, has no deadlines
	cc := connControl{rw: wrapper{struct{ http.ResponseWriter }{rec}}}
	for _, err := range []error{cc.SetReadDeadline(at), cc.SetWriteDeadline(at), cc.Flush()} {
		if !errors.Is(err, http.ErrNotSupported) {
			t.Fatalf("unsupported writer: %v", err)
		}
	}
}

// BenchmarkUnsupportedDeadlineAllocs: a writer without deadlines answers
// the shared not-supported error, no allocation (Go 1.26).
func BenchmarkUnsupportedDeadlineAllocs(b *testing.B) {
	cc := connControl{rw: wrapper{struct{ http.ResponseWriter }{httptest.NewRecorder()}}}
	at := time.Unix(1_800_000_000, 0)
	b.ReportAllocs()
	for b.Loop() {
		_ = cc.SetWriteDeadline(at)
	}
}
