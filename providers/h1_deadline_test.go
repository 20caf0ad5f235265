package providers

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// countConn is a TCP connection that counts read deadline changes.
type countConn struct {
	*net.TCPConn
	sets *atomic.Int64
}

func (c *countConn) SetReadDeadline(t time.Time) error {
	c.sets.Add(1)
	return c.TCPConn.SetReadDeadline(t)
}

// countingDial makes lean's client dial connections that count their read
// deadline changes into sets.
func countingDial(lean caller, sets *atomic.Int64) {
	lean.lean.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countConn{TCPConn: c.(*net.TCPConn), sets: sets}, nil
	}
}

// TestH1OneDeadlineACall: an answer whose body arrived with its headers
// costs one read deadline change (the response header timeout, armed and
// left), not two; the connection stays in use.
func TestH1OneDeadlineACall(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, _ := h1Callers(t, 0)
	lean.lean.headerTimeout = 30 * time.Second
	var sets atomic.Int64
	countingDial(lean, &sets)
	const calls = 10
	for i := range calls {
		if x := callOnce(t, lean, "POST", srv.url(), []byte(`{}`)); x.err != "" || x.body != `{"ok":true}` {
			t.Fatalf("call %d: %+v", i, x)
		}
	}
	if n := srv.accepts.Load(); n != 1 {
		t.Fatalf("%d calls opened %d connections, want 1", calls, n)
	}
	if n := sets.Load(); n != calls {
		t.Fatalf("%d calls changed the read deadline %d times, want %d", calls, n, calls)
	}
}

// TestH1ArmedDeadlinePassesWhileIdle: a connection whose header deadline,
// left armed by its last call, passed while it sat in the pool is still
// used for the next POST (the deadline cleared before the probe), which
// succeeds.
func TestH1ArmedDeadlinePassesWhileIdle(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, _ := h1Callers(t, 0)
	lean.lean.headerTimeout = 30 * time.Millisecond
	for i := range 3 {
		if x := callOnce(t, lean, "POST", srv.url(), []byte(`{}`)); x.err != "" || x.body != `{"ok":true}` {
			t.Fatalf("call %d: %+v", i, x)
		}
		time.Sleep(60 * time.Millisecond)
	}
	if n := srv.accepts.Load(); n != 1 {
		t.Fatalf("3 calls opened %d connections, want 1: a passed header deadline cost the pooled connection", n)
	}
}

// TestH1BodyAfterHeaderTimeout: a body that arrives after the response
// header timeout, its headers in time, is read whole: the header deadline
// is lifted once the headers are read when the body is not all there.
func TestH1BodyAfterHeaderTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\""))
		time.Sleep(150 * time.Millisecond)
		c.Write([]byte(":true}"))
		time.Sleep(time.Second)
	}()
	lean, _ := h1Callers(t, 0)
	lean.lean.headerTimeout = 50 * time.Millisecond
	if x := callOnce(t, lean, "POST", "http://"+ln.Addr().String()+"/v1/chat/completions", []byte(`{}`)); x.err != "" || x.body != `{"ok":true}` {
		t.Fatalf("%+v", x)
	}
}
