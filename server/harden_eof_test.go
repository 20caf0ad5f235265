package server

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"
)

// deadlineRW is a response writer that accepts read deadlines.
type deadlineRW struct{ http.ResponseWriter }

func (deadlineRW) SetReadDeadline(time.Time) error { return nil }

// TestSlowBodyGuardEOFAllocations: reading a body to its end through the
// slow-body guard allocates nothing (the end of a body is not examined as
// a possible timeout), ends with io.EOF and lifts the guard.
func TestSlowBodyGuardEOFAllocations(t *testing.T) {
	data := []byte(`{"model":"openai:gpt-4o-mini","input":"hi"}`)
	rd := bytes.NewReader(data)
	now := time.Now()
	g := &slowBodyGuard{body: io.NopCloser(rd), rc: &connControl{rw: deadlineRW{}}, idle: time.Minute,
		grace: time.Hour, start: now, limit: time.Hour, deadline: now.Add(time.Hour)}
	buf := make([]byte, 16)
	var got []byte
	var last error
	readAll := func() {
		rd.Reset(data)
		g.done, g.n, got = false, 0, got[:0]
		for {
			n, err := g.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				last = err
				return
			}
		}
	}
	readAll()
	if last != io.EOF || !g.done || !bytes.Equal(got, data) || g.cutErr != nil {
		t.Fatalf("read %q, %v (done %v, cut %v)", got, last, g.done, g.cutErr)
	}
	if n := testing.AllocsPerRun(100, readAll); n != 0 {
		t.Fatalf("reading a body to its end allocates %.0f times, want 0", n)
	}
}
