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

// guardedBody is a slow-body guard over data, and the function that reads
// it to its end (from the start again each time) and returns what it read
// and the last error.
func guardedBody(data []byte) (*slowBodyGuard, func() ([]byte, error)) {
	rd := bytes.NewReader(data)
	now := time.Now()
	g := &slowBodyGuard{body: io.NopCloser(rd), rc: &connControl{rw: deadlineRW{}}, idle: time.Minute,
		grace: time.Hour, start: now, limit: time.Hour, deadline: now.Add(time.Hour)}
	buf := make([]byte, 16)
	var got []byte
	return g, func() ([]byte, error) {
		rd.Reset(data)
		g.done, g.n, got = false, 0, got[:0]
		for {
			n, err := g.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				return got, err
			}
		}
	}
}

// TestSlowBodyGuardEOF: reading a body to its end through the slow-body
// guard gives the body, ends with io.EOF and lifts the guard (the end of a
// body is not examined as a possible timeout).
func TestSlowBodyGuardEOF(t *testing.T) {
	data := []byte(`{"model":"openai:gpt-4o-mini","input":"hi"}`)
	g, readAll := guardedBody(data)
	for range 2 {
		got, last := readAll()
		if last != io.EOF || !g.done || !bytes.Equal(got, data) || g.cutErr != nil {
			t.Fatalf("read %q, %v (done %v, cut %v)", got, last, g.done, g.cutErr)
		}
	}
}

// BenchmarkSlowBodyGuardEOFAllocs: reading a body to its end through the
// slow-body guard allocates nothing (Go 1.26).
func BenchmarkSlowBodyGuardEOFAllocs(b *testing.B) {
	_, readAll := guardedBody([]byte(`{"model":"openai:gpt-4o-mini","input":"hi"}`))
	readAll()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readAll(); err != io.EOF {
			b.Fatal(err)
		}
	}
}
