package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// deadlineCounter counts the deadline changes made on the connections of
// a listener.
type deadlineCounter struct {
	net.Listener
	reads, writes, writeClears atomic.Int64
}

func (l *deadlineCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &deadlineCountConn{Conn: c, l: l}, nil
}

type deadlineCountConn struct {
	net.Conn
	l *deadlineCounter
}

func (c *deadlineCountConn) SetReadDeadline(t time.Time) error {
	c.l.reads.Add(1)
	return c.Conn.SetReadDeadline(t)
}

func (c *deadlineCountConn) SetWriteDeadline(t time.Time) error {
	c.l.writes.Add(1)
	if t.IsZero() {
		c.l.writeClears.Add(1)
	}
	return c.Conn.SetWriteDeadline(t)
}

func (c *deadlineCountConn) SetDeadline(t time.Time) error {
	c.l.reads.Add(1)
	c.l.writes.Add(1)
	return c.Conn.SetDeadline(t)
}

// TestLeanDeadlineChangesPerRequest bounds the connection deadline
// changes of keep-alive POSTs with small bodies through the whole
// middleware chain on the lean path: each one moves the connection's
// timers in the runtime's heap under its locks. Per request the idle
// deadline is set once and the answer's write deadline once; the body,
// already in the buffer, sets none (slowBodyGuard), the idle deadline is
// not cleared before the handler (newResponse), and the write deadline
// is not cleared after the answer (lean_write_deadline.go). Before, six a request.
// A hang-up watch that starts (a request still running after
// leanWatchDelay, on a slow machine) adds a few: the bound leaves room for
// that on an eighth of the requests.
func TestLeanDeadlineChangesPerRequest(t *testing.T) {
	s, _ := newInternal(t)
	s.echo.POST("/echo-body", func(c echo.Context) error {
		b, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		return c.JSONBlob(200, b)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	counted := &deadlineCounter{Listener: ln}
	srv := s.HTTPServer()
	l := s.Listen(counted, srv)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close(); s.CloseConnections() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"messages":[{"role":"user","content":"hi"}]}`
	req := []byte("POST /echo-body HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	br := bufio.NewReader(conn)
	one := func() {
		if _, err := conn.Write(req); err != nil {
			t.Fatal(err)
		}
		if err := skipAnswer(br); err != nil {
			t.Fatal(err)
		}
	}
	one()
	r0, w0, c0 := counted.reads.Load(), counted.writes.Load(), counted.writeClears.Load()
	const n = 40
	for range n {
		one()
	}
	// The last answer's idle deadline may be set after it was read.
	time.Sleep(20 * time.Millisecond)
	reads, writes, clears := counted.reads.Load()-r0, counted.writes.Load()-w0, counted.writeClears.Load()-c0
	t.Logf("%d requests: %d read deadline changes, %d write deadline changes (%d clears)", n, reads, writes, clears)
	// Two a request, and three for each of an eighth of them where the
	// watch started (it clears the deadline, then sets and clears it to
	// stop its read).
	if limit := int64(2*n + 3*(n/8)); reads+writes > limit {
		t.Fatalf("%d deadline changes for %d requests (reads %d, writes %d, write clears %d): more than %d",
			reads+writes, n, reads, writes, clears, limit)
	}
	if clears > n/8 {
		t.Fatalf("the write deadline was cleared %d times in %d requests", clears, n)
	}
}

// TestLeanLeftWriteDeadlineCleared: a write deadline a request set stays
// on the connection after its answer (lean_write_deadline.go), but a later write that
// no deadline was set for is not bound by it, as when the deadline was
// cleared after every answer: an answer written without one after the
// connection sat idle past the old deadline, and one net/http writes on a
// connection handed to it.
func TestLeanLeftWriteDeadlineCleared(t *testing.T) {
	const d = 30 * time.Millisecond
	h := handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/arm" {
			if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d)); err != nil {
				t.Error(err)
			}
		}
		_, _ = w.Write([]byte("ok"))
	})
	_, addr := startLean(t, h, LeanConfig{})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	get := func(path, extra string) string {
		t.Helper()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: h\r\n" + extra + "\r\n")); err != nil {
			t.Fatal(err)
		}
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("GET %s: no answer: %v", path, err)
		}
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if l == "\r\n" {
				break
			}
		}
		return line
	}
	readBody := func(n int) {
		if _, err := io.ReadFull(br, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	if line := get("/arm", ""); line != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("first answer: %q", line)
	}
	readBody(2)
	time.Sleep(3 * d)
	if line := get("/plain", ""); line != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("answer written without a deadline after the old one passed: %q", line)
	}
	readBody(2)
	if line := get("/arm", ""); line != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("third answer: %q", line)
	}
	readBody(2)
	time.Sleep(3 * d)
	// A chunked body is not the lean path's: net/http answers it.
	if line := get("/plain", "Transfer-Encoding: chunked\r\n\r\n0\r\n"); line != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("answer on the connection handed to net/http: %q", line)
	}
}
