package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// deadlineRecorder records the write deadlines set on it.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	set []time.Time
}

func (r *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	r.set = append(r.set, t)
	return nil
}

// TestDeadlineWriterArms: a non-stream answer (headers, one write, the
// server's flush) sets the connection's write deadline once, before its
// bytes can reach the connection; the flush after the handler re-arms when
// the last arming is older than a 64th of idle, and a writer that never
// wrote is armed for it. idle is long and the age of the last arming is
// set, not slept for, so a loaded machine cannot change the outcome.
func TestDeadlineWriterArms(t *testing.T) {
	const idle = time.Minute
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := &deadlineWriter{ResponseWriter: rec, rc: &connControl{rw: rec}, idle: idle}
	w.WriteHeader(http.StatusOK)
	if len(rec.set) != 0 {
		t.Fatalf("WriteHeader armed: %v", rec.set)
	}
	before := time.Now()
	w.Write([]byte("answer"))
	w.finish()
	if len(rec.set) != 1 || rec.set[0].Before(before.Add(idle)) {
		t.Fatalf("one answer: deadlines %v, want one at least idle after the write", rec.set)
	}
	w.armed = w.armed.Add(-idle / 16)
	w.finish()
	if len(rec.set) != 2 || rec.set[1].Before(rec.set[0]) {
		t.Fatalf("a flush after a 16th of idle: deadlines %v, want a later one", rec.set)
	}
	silent := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	sw := &deadlineWriter{ResponseWriter: silent, rc: &connControl{rw: silent}, idle: idle}
	sw.finish()
	if len(silent.set) != 1 {
		t.Fatalf("a handler that never wrote: deadlines %v, want one for the server's flush", silent.set)
	}
	off := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	ow := &deadlineWriter{ResponseWriter: off, rc: &connControl{rw: off}}
	ow.Write([]byte("x"))
	ow.finish()
	if len(off.set) != 0 {
		t.Fatalf("no idle timeout: deadlines %v", off.set)
	}
}
