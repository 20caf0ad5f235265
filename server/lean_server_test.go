package server_test

import (
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// leanServing counts the goroutines serving lean connections.
func leanServing() int { return leanStacks("") }

// leanStacks counts the lean connections' goroutines whose stack also
// has frame (any, when empty).
func leanStacks(frame string) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "server.(*leanConn).serve(") && strings.Contains(g, frame) {
			n++
		}
	}
	return n
}

// TestServerLeanPath: the test server (as hearth serve) reads simple
// requests on the lean path, the SDK's included: an answer through it
// is what the handlers wrote, and Stop (App.Close, Server.Close) closes
// the idle lean connection and leaves no lean goroutine behind.
func TestServerLeanPath(t *testing.T) {
	ts := servertest.Start(t)
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: hearth\r\nUser-Agent: langbase\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil || !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 200 OK\r\n") || !strings.Contains(string(buf[:n]), "\r\nlb-request-id: ") {
		t.Fatalf("health: %q, %v", buf[:n], err)
	}
	// The one kept alive (another test's may take a moment to end).
	for i := 0; leanServing() != 1; i++ {
		if i == 100 {
			t.Fatalf("%d lean connections served, want the one kept alive", leanServing())
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts.Stop()
	if n, err := c.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("after Stop the idle connection read %q, %v; want it closed", buf[:n], err)
	}
	for i := 0; leanServing() > 0; i++ {
		if i == 100 {
			t.Fatal("a lean connection's goroutine outlived Stop")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerCloseDrainsLean: Stop (App.Close, Server.Close) waits for
// a request in flight on a lean connection, which is answered whole and
// told Connection: close, before it closes the store.
func TestServerCloseDrainsLean(t *testing.T) {
	ts := servertest.Start(t)
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	body := `{"name":"drained","model":"hearth:echo"}`
	head := "POST /v1/pipes HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer " + servertest.AdminKey +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(c, head+body[:10]); err != nil {
		t.Fatal(err)
	}
	// The handler waits for the rest of the body.
	for i := 0; leanStacks("server.(*leanBody).Read(") == 0; i++ {
		if i == 500 {
			t.Fatal("the request is not in its handler on the lean path")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stopped := make(chan struct{})
	go func() { ts.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned with a request in flight")
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := io.WriteString(c, body[10:]); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(c)
	if err != nil || !strings.HasPrefix(string(all), "HTTP/1.1 20") || !strings.Contains(string(all), "\r\nConnection: close\r\n") ||
		!strings.Contains(string(all), `"drained"`) {
		t.Fatalf("the request in flight got %q, %v", all, err)
	}
	<-stopped
}

// TestServerLeanOff: with LeanOff (HEARTH_SERVER_HTTP1=stdlib) every
// request is read by net/http alone.
func TestServerLeanOff(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.LeanOff = true }))
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(ts.URL + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body) // read whole: the connection stays open
	resp.Body.Close()
	// The transport keeps its connection: on the lean path it would
	// keep a lean goroutine (another test's may take a moment to end).
	for i := 0; leanServing() != 0; i++ {
		if i == 100 {
			t.Fatalf("%d connections on the lean path with LeanOff", leanServing())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
