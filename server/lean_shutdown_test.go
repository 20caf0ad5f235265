package server

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

// startLean serves h behind a lean listener and net/http; it returns
// the listener (not yet shut down).
func startLean(t testing.TB, h http.Handler, cfg LeanConfig) (*LeanListener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: cfg.ReadHeaderTimeout, IdleTimeout: cfg.IdleTimeout}
	ll := NewLeanListener(ln, h, cfg)
	go func() { _ = srv.Serve(ll) }()
	t.Cleanup(func() { _ = srv.Close(); ll.CloseConnections() })
	return ll, ln.Addr().String()
}

// blockingHandler answers /block once release is closed, after telling
// started; other paths answer at once.
func blockingHandler(started chan<- struct{}, release <-chan struct{}) http.Handler {
	return handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/block" {
			started <- struct{}{}
			<-release
		}
		_, _ = w.Write([]byte("done"))
	})
}

// TestLeanShutdown: Shutdown closes an idle lean connection at once,
// lets a busy one finish its answer (marked Connection: close) and
// returns when both are gone, with no lean goroutine left.
func TestLeanShutdown(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	ll, addr := startLean(t, blockingHandler(started, release), LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute})
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	ibr := bufio.NewReader(idle)
	if resp, body := roundTrip(t, idle, ibr, leanReq("GET /now HTTP/1.1"), "GET"); resp.StatusCode != 200 || body != "done" {
		t.Fatalf("idle connection's request: %d %q", resp.StatusCode, body)
	}
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, err := io.WriteString(busy, leanReq("GET /block HTTP/1.1")); err != nil {
		t.Fatal(err)
	}
	<-started

	done := make(chan error, 1)
	go func() { done <- ll.Shutdown(context.Background()) }()
	_ = idle.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := ibr.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("idle connection after Shutdown: read %d, %v; want it closed", n, err)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	_ = busy.SetReadDeadline(time.Now().Add(5 * time.Second))
	all, err := io.ReadAll(busy)
	if err != nil || !strings.HasPrefix(string(all), "HTTP/1.1 200 OK\r\n") || !strings.Contains(string(all), "\r\nConnection: close\r\n") ||
		!strings.HasSuffix(string(all), "\r\n\r\ndone") {
		t.Fatalf("busy connection's answer: %q, %v", all, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatal("the listener still accepts after Shutdown")
	}
	waitNoLeanGoroutines(t)
}

// TestLeanShutdownTimeout: when the shutdown's context ends first, the
// busy connections are cut and its error returned; the serving
// goroutine ends with its handler.
func TestLeanShutdownTimeout(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	ll, addr := startLean(t, blockingHandler(started, release), LeanConfig{})
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, err := io.WriteString(busy, leanReq("GET /block HTTP/1.1")); err != nil {
		t.Fatal(err)
	}
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := ll.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want the deadline", err)
	}
	_ = busy.SetReadDeadline(time.Now().Add(2 * time.Second))
	if all, err := io.ReadAll(busy); len(all) != 0 || err != nil && !isReset(err) {
		t.Fatalf("cut connection: read %q, %v; want it closed", all, err)
	}
	close(release)
	waitNoLeanGoroutines(t)
}

// readUntilClosed reads from a fresh connection to addr that sent raw
// (without half-closing) until the server closes it, within 5 s.
func readUntilClosed(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(c)
	if err != nil && !isReset(err) {
		t.Fatalf("read: %v (after %q)", err, out)
	}
	return string(out)
}

// TestLeanTimeouts: a head that stops arriving is cut after
// ReadHeaderTimeout, on a new connection and on a kept-alive one, and an
// idle connection after IdleTimeout, as net/http cuts them (a part of a
// head it cannot read is answered 400, anything else closed in
// silence). The lean side's http.Server waits a minute for a head: a
// hand-over that made net/http wait again would outlast the client's
// deadline.
func TestLeanTimeouts(t *testing.T) {
	cfg := LeanConfig{ReadHeaderTimeout: 150 * time.Millisecond, IdleTimeout: 300 * time.Millisecond}
	p := startLeanPair(t, handlerFunc(leanDiffHandler), cfg, func(s *http.Server) { s.ReadHeaderTimeout = time.Minute })
	cases := []struct{ name, raw string }{
		{"nothing sent", ""},
		{"partial head", "GET /echo HTTP/1.1\r\nHost: exa"},
		{"partial request line", "GET /ec"},
		{"partial second head", leanReq("GET /echo HTTP/1.1") + "GET /echo HTTP/1.1\r\nHo"},
		{"idle after an answer", leanReq("GET /echo HTTP/1.1")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := readUntilClosed(t, p.plain, tc.raw)
			got := readUntilClosed(t, p.lean, tc.raw)
			if normalize(got, p.lean) != normalize(want, p.plain) {
				t.Fatalf("lean answered %q, net/http %q", got, want)
			}
		})
	}
}
