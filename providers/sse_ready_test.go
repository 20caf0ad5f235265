package providers

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// errWouldBlock stands for a connection with nothing more to read yet.
var errWouldBlock = errors.New("would block")

// pendingReader returns its bytes, then errWouldBlock: what the reader
// has read so far is all the upstream has sent.
type pendingReader struct{ b []byte }

func (r *pendingReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, errWouldBlock
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// checkComplete reads in with nothing more to come and checks, before
// every event, that complete says true exactly when next returns an event
// without needing more bytes.
func checkComplete(t *testing.T, in string) {
	r := newSSEReader(&pendingReader{b: []byte(in)})
	defer r.release()
	r.r.Peek(1) // what has arrived is in the buffer
	for i := 0; ; i++ {
		c := r.complete()
		_, _, err := r.next()
		if c != (err == nil) {
			t.Fatalf("%.200q, event %d: complete %v, next %v", in, i, c, err)
		}
		if err != nil {
			return
		}
	}
}

// TestSSEReaderComplete: complete agrees with next on every prefix of
// streams with comments, other fields, blank lines, CRLF and multi-line
// data.
func TestSSEReaderComplete(t *testing.T) {
	streams := []string{
		": keep-alive\r\n\r\nevent: a\r\ndata: one\r\n\r\ndata: two\ndata: lines\nid: 7\nretry: 10\n\n\n",
		"data:x\n\ndata\n\nevent: e\n\n: c\ndata: y\r\n\r\n",
		"\n\n\r\n: only comments\n\nid: 1\n\nevent: ping\n\ndata: z\n\n",
		"data: a\r\r\n\r\ndata: b\rdata: c\n\n",
		"data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
	}
	for _, s := range streams {
		for cut := 1; cut <= len(s); cut++ {
			checkComplete(t, s[:cut])
		}
	}
	// An event longer than the buffer is never complete: a wrong "false"
	// only costs a flush, a wrong "true" would hold an event back.
	r := newSSEReader(&pendingReader{b: []byte("data: " + strings.Repeat("x", 20<<10) + "\n\n")})
	defer r.release()
	r.r.Peek(1)
	if r.complete() {
		t.Fatal("an event longer than the buffer counts as complete")
	}
	if _, data, err := r.next(); err != nil || len(data) != 20<<10 {
		t.Fatalf("next: %d bytes, %v", len(data), err)
	}
}

// FuzzSSEReaderComplete checks complete against next on any input.
func FuzzSSEReaderComplete(f *testing.F) {
	f.Add("data: one\r\n\r\n: c\n\ndata: two\n\n")
	f.Add("event: a\ndata\n\n\n\ndata:")
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) == 0 || len(in) > 8<<10 {
			return
		}
		checkComplete(t, in)
	})
}

// TestSSEReaderCompleteAtEOF: an event that only the end of the body
// ends is not complete (next would have to read to learn of the end).
func TestSSEReaderCompleteAtEOF(t *testing.T) {
	r := newSSEReader(strings.NewReader("data: cut"))
	defer r.release()
	r.r.Peek(1)
	if r.complete() {
		t.Fatal("an unterminated event counts as complete")
	}
	if _, data, err := r.next(); err != nil || string(data) != "cut" {
		t.Fatalf("next: %q %v", data, err)
	}
	if r.complete() {
		t.Fatal("complete at the end of the body")
	}
	if _, _, err := r.next(); err != io.EOF {
		t.Fatalf("after the end: %v", err)
	}
}
