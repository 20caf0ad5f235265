package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// roundTrip writes raw on c and reads one answer.
func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader, raw, method string) (*http.Response, string) {
	t.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestLeanHandoffMidConnection: a simple request, then one the lean path
// hands over, then a simple one, on one live connection: all answered,
// the first on the lean path and the rest by net/http.
func TestLeanHandoffMidConnection(t *testing.T) {
	p := startLeanPair(t, handlerFunc(leanDiffHandler), LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	c, err := net.Dial("tcp", p.lean)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	steps := []struct{ raw, want string }{
		{post("/echo", "one"), `body="one"`},
		{leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked") + "3\r\ntwo\r\n0\r\n\r\n", `body="two"`},
		{post("/echo", "three"), `body="three"`},
		{leanReq("GET /echo?four HTTP/1.1"), `query="four"`},
	}
	for i, s := range steps {
		resp, body := roundTrip(t, c, br, s.raw, "POST")
		if resp.StatusCode != 200 || !strings.Contains(body, s.want) {
			t.Fatalf("step %d: %d %q, want %s", i, resp.StatusCode, body, s.want)
		}
	}
	if got := p.served(c.LocalAddr().String()); len(got) != 4 || !got[0] || got[1] || got[2] || got[3] {
		t.Fatalf("served lean %v, want [true false false false]", got)
	}
}

// TestLeanHangUpCancels: a client that hangs up while its request runs
// cancels the request's context, with or without a body.
func TestLeanHangUpCancels(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	h := handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			cancelled <- context.Cause(r.Context())
		case <-time.After(10 * time.Second):
			cancelled <- errors.New("not cancelled")
		}
	})
	p := startLeanPair(t, h, LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	for _, raw := range []string{leanReq("GET /wait HTTP/1.1"), post("/wait", "body")} {
		c, err := net.Dial("tcp", p.lean)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
		<-started
		time.Sleep(2 * leanWatchDelay)
		c.Close()
		if err := <-cancelled; !errors.Is(err, context.Canceled) {
			t.Fatalf("%q: the request's context ended with %v, want it cancelled", raw, err)
		}
		if got := p.served(c.LocalAddr().String()); len(got) != 1 || !got[0] {
			t.Fatalf("served %v, want the lean path", got)
		}
	}
}

// TestLeanHangUpEarly: a client that hangs up before leanWatchDelay has
// passed is noticed too, once the delay ends.
func TestLeanHangUpEarly(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan bool, 1)
	h := handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			cancelled <- true
		case <-time.After(10 * time.Second):
			cancelled <- false
		}
	})
	p := startLeanPair(t, h, LeanConfig{})
	c, err := net.Dial("tcp", p.lean)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, leanReq("GET /wait HTTP/1.1")); err != nil {
		t.Fatal(err)
	}
	<-started
	c.Close()
	if !<-cancelled {
		t.Fatal("the request's context was not cancelled after the client hung up")
	}
}

// leanGoroutines counts the goroutines running the lean path's code.
func leanGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "server.(*leanConn)") || strings.Contains(g, "server.(*LeanListener)") ||
			strings.Contains(g, "server.(*leanReader)") {
			n++
		}
	}
	return n
}

// waitNoLeanGoroutines fails t unless every lean goroutine ends soon.
func waitNoLeanGoroutines(t *testing.T) {
	t.Helper()
	for i := 0; leanGoroutines() > 0; i++ {
		if i == 200 {
			t.Fatalf("%d lean goroutines still run", leanGoroutines())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLeanLogs: what the lean path logs for a handler's mistakes (a
// superfluous WriteHeader, an invalid Content-Length, a panic) is what
// net/http logs, caller and line included.
func TestLeanLogs(t *testing.T) {
	logs := map[bool]*strings.Builder{false: {}, true: {}}
	var mu sync.Mutex
	for _, lean := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		w := logs[lean]
		errLog := log.New(writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return w.Write(p) }), "", 0)
		srv := &http.Server{Handler: handlerFunc(leanDiffHandler), ErrorLog: errLog}
		var l net.Listener = ln
		if lean {
			ll := NewLeanListener(ln, srv.Handler, LeanConfig{ErrorLog: errLog})
			defer ll.CloseConnections()
			l = ll
		}
		go func() { _ = srv.Serve(l) }()
		defer srv.Close()
		exchange(t, ln.Addr().String(), leanReq("GET /superfluous HTTP/1.1")+leanReq("GET /cl-bad HTTP/1.1")+leanReq("GET /te-chunked HTTP/1.1"))
		exchange(t, ln.Addr().String(), leanReq("GET /panic-value HTTP/1.1"))
	}
	mu.Lock()
	defer mu.Unlock()
	// A panic's stack differs below the handler; its first line does not.
	first := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "http: ") {
				out = append(out, regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(l, "ADDR"))
			}
		}
		return strings.Join(out, "\n")
	}
	got, want := first(logs[true].String()), first(logs[false].String())
	t.Logf("logged:\n%s", got)
	if got != want || !strings.Contains(want, "superfluous") || !strings.Contains(want, "panic serving") {
		t.Fatalf("lean path logged\n%s\nnet/http logged\n%s", got, want)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestLeanPipelinedDuringWatch: a request that arrives while the one
// before still runs, past leanWatchDelay, lands in the hang-up watch's
// read (its first byte) and is answered next, as net/http answers it.
func TestLeanPipelinedDuringWatch(t *testing.T) {
	p := startLeanPair(t, handlerFunc(leanDiffHandler), LeanConfig{})
	staged := func(addr string) string {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, leanReq("GET /slow HTTP/1.1")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(4 * leanWatchDelay) // the handler sleeps longer
		if _, err := io.WriteString(c, post("/echo", "second")); err != nil {
			t.Fatal(err)
		}
		_ = c.(*net.TCPConn).CloseWrite()
		out, err := io.ReadAll(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	want, got := normalize(staged(p.plain), p.plain), normalize(staged(p.lean), p.lean)
	if got != want || !strings.Contains(want, `body="second"`) {
		t.Fatalf("lean answered\n%q\nnet/http answered\n%q", got, want)
	}
}
