package providers

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

const okAnswer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"

// TestH1ReusesConnections: sequential calls share one keep-alive
// connection, also after a body closed before its end when the rest of
// it had already arrived (TestH1CloseAfterLastEvent has the other case).
func TestH1ReusesConnections(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, _ := h1Callers(t, 0)
	for i := range 20 {
		if x := callOnce(t, lean, "POST", srv.url(), []byte(`{}`)); x.err != "" || x.body != `{"ok":true}` {
			t.Fatalf("call %d: %+v", i, x)
		}
	}
	if n := srv.accepts.Load(); n != 1 {
		t.Fatalf("20 calls opened %d connections, want 1", n)
	}
	st := &callState{data: []byte(`{}`)}
	req, _ := ctxRequest(st, context.Background(), "POST", srv.url(), 0)
	resp, err := lean.do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Read(make([]byte, 2))
	resp.Body.Close()
	callOnce(t, lean, "POST", srv.url(), []byte(`{}`))
	if n := srv.accepts.Load(); n != 1 {
		t.Fatalf("a body closed with its rest received cost its connection (%d connections)", n)
	}
}

// TestH1StaleIdleConnection: a server that closes idle connections (as
// uvicorn does after 5 s) between two calls costs neither call, and the
// POST reaches it exactly once each time.
func TestH1StaleIdleConnection(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), true })
	lean, _ := h1Callers(t, 0)
	for i := range 3 {
		if x := callOnce(t, lean, "POST", srv.url(), []byte(`{}`)); x.err != "" {
			t.Fatalf("call %d: %+v", i, x)
		}
		time.Sleep(probeAfter + 50*time.Millisecond)
	}
	if a, r := srv.accepts.Load(), srv.requests.Load(); a != 3 || r != 3 {
		t.Fatalf("%d connections, %d requests; want 3 and 3", a, r)
	}
}

// TestH1NoReplayAfterWrite: a connection the server closes right after
// reading a POST fails that call; the lean client does not send it again.
func TestH1NoReplayAfterWrite(t *testing.T) {
	srv := startRaw(t, func(n int64, _ *http.Request) ([]byte, bool) {
		if n == 1 {
			return []byte(okAnswer), false
		}
		return nil, true
	})
	lean, _ := h1Callers(t, 0)
	callOnce(t, lean, "POST", srv.url(), []byte(`{}`))
	if x := callOnce(t, lean, "POST", srv.url(), []byte(`{}`)); x.err == "" {
		t.Fatal("no error from a connection closed without an answer")
	}
	if r := srv.requests.Load(); r != 2 {
		t.Fatalf("the server saw %d requests, want 2 (the POST was sent again)", r)
	}
}

// TestH1RetryNothingWritten: a pooled connection whose write fails at once
// (nothing of the request went out) is replaced by a fresh one and the
// call succeeds; rewinding the body from GetBody.
func TestH1RetryNothingWritten(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, _ := h1Callers(t, 0)
	callOnce(t, lean, "POST", srv.url(), []byte(`{"a":1}`))
	lean.lean.mu.Lock()
	for _, list := range lean.lean.idle {
		for _, pc := range list {
			pc.conn.Close() // its next write fails before a byte is sent
		}
	}
	lean.lean.mu.Unlock()
	if x := callOnce(t, lean, "POST", srv.url(), []byte(`{"a":1}`)); x.err != "" {
		t.Fatalf("call on a dead pooled connection: %s", x.err)
	}
	if a, r := srv.accepts.Load(), srv.requests.Load(); a != 2 || r != 2 {
		t.Fatalf("%d connections, %d requests; want 2 and 2", a, r)
	}
}

// hungServer reads one request a connection, writes head (nothing when
// empty) and then holds the connection until the client closes it or the
// test ends. It signals each request read (received) and each connection
// the client closed (closed; one closed before its request arrived counts
// too: the call ended that early). Signals past the channels' room are
// dropped: tests wait for the first few.
type hungServer struct {
	ln               net.Listener
	received, closed chan struct{}
}

func startHung(t *testing.T, head string) *hungServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hungServer{ln: ln, received: make(chan struct{}, 16), closed: make(chan struct{}, 16)}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	signal := func(ch chan struct{}) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				<-done // the test's end closes a connection its client kept
				c.Close()
			}()
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					signal(s.closed)
					return
				}
				io.Copy(io.Discard, req.Body)
				signal(s.received)
				io.WriteString(c, head)
				io.Copy(io.Discard, br) // until the client closes
				signal(s.closed)
			}()
		}
	}()
	return s
}

func (s *hungServer) url() string { return "http://" + s.ln.Addr().String() + "/v1/chat/completions" }

// waitClosed fails unless the server saw the call's connection closed.
func (s *hungServer) waitClosed(t *testing.T, what string) {
	t.Helper()
	select {
	case <-s.closed:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the upstream connection was not closed", what)
	}
}

// TestH1CancelWaitingForHeaders: cancelling the call while the upstream
// has not answered ends it at once with the error net/http gives.
func TestH1CancelWaitingForHeaders(t *testing.T) {
	url := startHung(t, "").url()
	lean, std := h1Callers(t, 0)
	var msgs []string
	for _, c := range []caller{std, lean} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := c.post(ctx, url, []byte(`{}`), false, func(http.Header) {})
		if err == nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call: %v", err)
		}
		msgs = append(msgs, err.Error())
	}
	if msgs[0] != msgs[1] {
		t.Fatalf("net/http: %s\nlean: %s", msgs[0], msgs[1])
	}
}

// TestH1CancelMidStream: cancelling a stream after its first event ends
// the blocked read of the next at once with the context's error.
func TestH1CancelMidStream(t *testing.T) {
	url := startHung(t, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"f\r\ndata: {\"a\":1}\n\n\r\n").url()
	lean, std := h1Callers(t, 0)
	for _, c := range []caller{std, lean} {
		ctx, cancel := context.WithCancel(context.Background())
		call, err := c.post(ctx, url, []byte(`{}`), true, func(http.Header) {})
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(call.resp.Body)
		line, err := br.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "data: ") {
			t.Fatalf("first event: %q %v", line, err)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err = io.ReadAll(br)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("read after cancel: %v", err)
		}
		call.close()
	}
}

// TestH1HeaderTimeout: the transport's ResponseHeaderTimeout bounds the
// wait for headers, worded as net/http words it.
func TestH1HeaderTimeout(t *testing.T) {
	url := startHung(t, "").url()
	lean, std := h1Callers(t, 0)
	std.client.Transport.(*http.Transport).ResponseHeaderTimeout = 50 * time.Millisecond
	lean.lean.headerTimeout = 50 * time.Millisecond
	a, b := callOnce(t, std, "POST", url, []byte(`{}`)), callOnce(t, lean, "POST", url, []byte(`{}`))
	if a.err == "" || a.err != b.err {
		t.Fatalf("net/http: %s\nlean: %s", a.err, b.err)
	}
}

// TestH1IdleTimeout: a connection idle past the transport's idle timeout
// is not used again: taken from the pool it is closed and another dialled,
// and returning a connection closes the expired ones before it.
func TestH1IdleTimeout(t *testing.T) {
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(okAnswer), false })
	lean, _ := h1Callers(t, 0)
	h := lean.lean
	h.idleTimeout = 50 * time.Millisecond
	callOnce(t, lean, "POST", srv.url(), []byte(`{}`))
	time.Sleep(80 * time.Millisecond)
	callOnce(t, lean, "POST", srv.url(), []byte(`{}`))
	if n := srv.accepts.Load(); n != 2 {
		t.Fatalf("%d connections, want 2: an expired connection was used", n)
	}
	// Two connections in the pool, both expired, then a third returned.
	var conns []*h1Conn
	for range 2 {
		pc, _, err := h.get(context.Background(), srv.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, pc)
	}
	h.put(conns[0])
	h.put(conns[1])
	time.Sleep(80 * time.Millisecond)
	pc, err := h.dial(context.Background(), "tcp", srv.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	h.put(newH1Conn(h, srv.ln.Addr().String(), pc))
	if h.nidle != 1 {
		t.Fatalf("%d idle connections after a put, want 1 (the expired ones closed)", h.nidle)
	}
	for i, c := range conns {
		if _, err := c.conn.Write([]byte("x")); err == nil {
			t.Fatalf("expired connection %d still open", i)
		}
	}
}

// TestH1CloseAfterLastEvent: a stream closed after its last event, with
// the chunked terminator already received, leaves its connection to the
// next call; one whose rest has not arrived is closed at once.
func TestH1CloseAfterLastEvent(t *testing.T) {
	const stream = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n"
	srv := startRaw(t, func(int64, *http.Request) ([]byte, bool) { return []byte(stream), false })
	lean, _ := h1Callers(t, 0)
	for range 3 {
		call, err := lean.post(context.Background(), srv.url(), []byte(`{}`), true, func(http.Header) {})
		if err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(call.resp.Body).ReadString('\n')
		if err != nil || line != "data: [DONE]\n" {
			t.Fatalf("event: %q %v", line, err)
		}
		call.close()
	}
	if n := srv.accepts.Load(); n != 1 {
		t.Fatalf("3 streams opened %d connections, want 1", n)
	}
	url := startHung(t, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nf\r\ndata: {\"a\":1}\n\n\r\n").url()
	call, err := lean.post(context.Background(), url, []byte(`{}`), true, func(http.Header) {})
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(call.resp.Body).ReadString('\n')
	call.close()
	if n := lean.lean.nidle; n != 1 {
		t.Fatalf("%d idle connections: a stream closed before its end went back to the pool", n)
	}
}

// TestH1CallTimeout: the caller's per-call timeout ends a call whose
// upstream does not answer, worded as on net/http's path.
func TestH1CallTimeout(t *testing.T) {
	url := startHung(t, "").url()
	lean, std := h1Callers(t, 0)
	var msgs []string
	for _, c := range []caller{std, lean} {
		c.timeout = 50 * time.Millisecond
		_, err := c.post(context.Background(), url, []byte(`{}`), false, func(http.Header) {})
		if err == nil {
			t.Fatal("no error from an upstream that never answers")
		}
		msgs = append(msgs, err.Error())
	}
	if msgs[0] != msgs[1] || !strings.Contains(msgs[1], "did not answer in time") {
		t.Fatalf("net/http: %s\nlean: %s", msgs[0], msgs[1])
	}
}
