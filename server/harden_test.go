package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// hardened starts a real listener with short slow-client limits.
func hardened(t *testing.T, adjust func(*Config)) (*Server, string) {
	t.Helper()
	cfg := Config{Addr: "127.0.0.1:0", ReadHeaderTimeout: 300 * time.Millisecond, BodyIdleTimeout: 300 * time.Millisecond,
		BodyGrace: 300 * time.Millisecond, BodyMinRate: 1000, WriteIdleTimeout: 300 * time.Millisecond}
	if adjust != nil {
		adjust(&cfg)
	}
	s, acc := newLimited(t, cfg)
	acc.CreateUser(context.Background(), "alice")
	_, key, _ := acc.CreateKey(context.Background(), "alice", "")
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s, key
}

// rawConn dials the server and returns a reader of its answers.
func rawConn(t *testing.T, s *Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second)) // the test's own bound
	return conn, bufio.NewReader(conn)
}

// trickle writes b one byte at a time until the server hangs up.
func trickle(conn net.Conn, b string, every time.Duration) {
	go func() {
		for i := 0; i < len(b); i++ {
			if _, err := conn.Write([]byte{b[i]}); err != nil {
				return
			}
			time.Sleep(every)
		}
	}()
}

// closedWithin reads until the server closes the connection and returns
// what it sent, failing if that takes longer than limit.
func closedWithin(t *testing.T, rd *bufio.Reader, limit time.Duration) string {
	t.Helper()
	start := time.Now()
	b, _ := io.ReadAll(rd) // EOF or reset: the server hung up
	if el := time.Since(start); el > limit {
		t.Fatalf("connection held %v, want under %v (got %q)", el, limit, b)
	}
	return string(b)
}

func TestSlowClientsAreCutOff(t *testing.T) {
	s, key := hardened(t, nil)
	post := func(length int) string {
		return fmt.Sprintf("POST /v1/keys HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", key, length)
	}
	t.Run("headers byte by byte", func(t *testing.T) {
		conn, rd := rawConn(t, s)
		trickle(conn, "GET /health HTTP/1.1\r\nHost: h\r\nX-Slow: "+strings.Repeat("a", 500), 20*time.Millisecond)
		closedWithin(t, rd, 3*time.Second)
	})
	t.Run("body goes silent", func(t *testing.T) {
		conn, rd := rawConn(t, s)
		conn.Write([]byte(post(100) + `{"name":`))
		out := closedWithin(t, rd, 3*time.Second)
		if !strings.HasPrefix(out, "HTTP/1.1 408") || !strings.Contains(out, "REQUEST_TIMEOUT") {
			t.Fatalf("answer %q", out)
		}
	})
	t.Run("body byte by byte", func(t *testing.T) {
		conn, rd := rawConn(t, s)
		conn.Write([]byte(post(400)))
		trickle(conn, `{"name":"`+strings.Repeat("x", 380)+`"}`, 20*time.Millisecond)
		out := closedWithin(t, rd, 3*time.Second)
		if !strings.HasPrefix(out, "HTTP/1.1 408") {
			t.Fatalf("answer %q", out)
		}
	})
	t.Run("a normal client is served", func(t *testing.T) {
		conn, rd := rawConn(t, s)
		body := `{"name":"ok"}`
		conn.Write([]byte(post(len(body)) + body))
		resp, err := http.ReadResponse(rd, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
	})
}

// TestLongStreamsOutliveTheIdleLimits: a response with pauses longer than
// every idle limit is delivered whole, and the request context survives
// (the body deadline is lifted once the body is read).
func TestLongStreamsOutliveTheIdleLimits(t *testing.T) {
	s, key := hardened(t, nil)
	s.echo.POST("/t/stream", func(c echo.Context) error {
		if _, err := readBody(c); err != nil {
			return err
		}
		c.Response().WriteHeader(200)
		for i := range 3 {
			time.Sleep(700 * time.Millisecond)
			if err := c.Request().Context().Err(); err != nil {
				return err
			}
			fmt.Fprintf(c.Response(), "data: %d\n\n", i)
			c.Response().Flush()
		}
		return nil
	}, s.authenticate(AuthOwner))
	req, _ := http.NewRequest("POST", s.URL()+"/t/stream", strings.NewReader(`{"a":1}`))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || string(b) != "data: 0\n\ndata: 1\n\ndata: 2\n\n" {
		t.Fatalf("%q %v", b, err)
	}
}

// TestClientThatStopsReadingIsDropped: writes block once the socket
// buffers fill, and fail after the write idle timeout.
func TestClientThatStopsReadingIsDropped(t *testing.T) {
	s, _ := hardened(t, nil)
	result := make(chan error, 1)
	s.echo.GET("/t/big", func(c echo.Context) error {
		c.Response().WriteHeader(200)
		chunk := make([]byte, 1<<20)
		for range 1024 { // up to 1 GiB: far beyond any socket buffer
			if _, err := c.Response().Write(chunk); err != nil {
				result <- err
				return nil
			}
		}
		result <- nil
		return nil
	})
	conn, _ := rawConn(t, s)
	conn.Write([]byte("GET /t/big HTTP/1.1\r\nHost: h\r\n\r\n"))
	select {
	case err := <-result:
		if err == nil {
			t.Fatal("the whole response was written to a client that reads nothing")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the write to a stalled client never timed out")
	}
}

// TestStorageFaultsAreClear: a store error for a full or read-only disk
// (as blob.mapErr reports it) reaches the client as 507 or 503 with a
// message that says so and no internals.
func TestStorageFaultsAreClear(t *testing.T) {
	s, _ := newLimited(t, Config{})
	s.echo.POST("/t/full", func(echo.Context) error {
		return engine.Wrap(fmt.Errorf("write /data/000042.vlog: %w", syscall.ENOSPC), engine.CodeInsufficientStore, "the server's disk is full")
	})
	s.echo.POST("/t/ro", func(echo.Context) error {
		return engine.Wrap(syscall.EROFS, engine.CodeUnavailable, "storage is read-only")
	})
	for path, want := range map[string]int{"/t/full": 507, "/t/ro": 503} {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("POST", path, nil))
		var body ErrorBody5xx
		json.Unmarshal(rec.Body.Bytes(), &body)
		if rec.Code != want || body.Status != want || body.Error == "" || strings.Contains(rec.Body.String(), "vlog") {
			t.Errorf("%s: %d %s", path, rec.Code, rec.Body)
		}
	}
}
