package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// heldBody is a request whose body never finishes arriving, so the server
// keeps it in flight until the test ends.
type heldBody struct {
	t                        *testing.T
	ts                       *servertest.Server
	method, path, key, ctype string
	conn                     net.Conn
}

// holdBody opens a held request.
func holdBody(t *testing.T, ts *servertest.Server, method, path, key, contentType string) *heldBody {
	t.Helper()
	h := &heldBody{t: t, ts: ts, method: method, path: path, key: key, ctype: contentType}
	h.open()
	return h
}

func (h *heldBody) open() {
	h.t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.ts.URL, "http://"))
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(20 * time.Second)) // the test's own bound
	auth := ""
	if h.key != "" {
		auth = "Authorization: Bearer " + h.key + "\r\n"
	}
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: hearth\r\n%sContent-Type: %s\r\nContent-Length: 100000\r\n\r\n{", h.method, h.path, auth, h.ctype)
	h.conn = conn
}

// reopenIfAnswered opens the request again when the server already
// answered it: a held request that reached the server while a probe of
// refusedInFlight held a slot was itself refused with 429 (answered at
// once, with Connection: close, not after reading the body).
func (h *heldBody) reopenIfAnswered() {
	h.t.Helper()
	h.conn.SetReadDeadline(time.Now().Add(time.Millisecond))
	var b [1]byte
	n, _ := h.conn.Read(b[:])
	h.conn.SetDeadline(time.Now().Add(20 * time.Second))
	if n > 0 {
		h.conn.Close()
		h.open()
	}
}

// refusedInFlight waits until the server counts the held requests, then
// checks that one more gets the 429 naming the cap.
func refusedInFlight(t *testing.T, send func() *servertest.Response, cap string, held ...*heldBody) {
	t.Helper()
	r := send()
	for deadline := time.Now().Add(10 * time.Second); r.Status != 429 && time.Now().Before(deadline); r = send() {
		time.Sleep(10 * time.Millisecond)
		for _, h := range held {
			h.reopenIfAnswered()
		}
	}
	code, msg := errorOf(t, r)
	if code != "RATE_LIMITED" || !strings.Contains(msg, cap) || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("over the in-flight cap: %d %v %s", r.Status, r.Header, r.Body)
	}
}

// One API key (or one client address, without a key) holding its
// in-flight cap with slow bodies is refused with 429 while other keys are
// served; the refused requests never reach a handler.
func TestInFlightCapPerKeyAndAddress(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) {
		c.MaxInFlightPerKey, c.MaxInFlightPerIP = 2, 2
		c.BodyIdleTimeout, c.BodyGrace, c.BodyTimeout = 15*time.Second, 15*time.Second, 15*time.Second
	}))
	admin, bob := servertest.AdminKey, ts.UserWithKey("bob")
	h1 := holdBody(t, ts, "POST", "/v1/threads", admin, "application/json")
	h2 := holdBody(t, ts, "POST", "/v1/threads", admin, "application/json")
	refusedInFlight(t, func() *servertest.Response { return ts.Do("GET", "/v1/threads", admin, nil) }, "limit is 2 requests at once per API key", h1, h2)
	mustStatus(t, ts.Do("GET", "/v1/threads", bob, nil), 200)
	mustStatus(t, ts.Do("GET", "/health", "", nil), 200)

	// Without a key the client address is counted: two slow uploads hold it.
	createMemory(t, ts, bob, map[string]any{"name": "kb", "embedding_model": hashModel})
	var uploads []*heldBody
	for _, doc := range []string{"a.txt", "b.txt"} {
		uploads = append(uploads, holdBody(t, ts, "PUT", strings.TrimPrefix(signedURL(t, ts, bob, "kb", doc, nil), ts.URL), "", "text/plain"))
	}
	refusedInFlight(t, func() *servertest.Response { return ts.Do("GET", "/v1/models", "", nil) }, "per client address", uploads...)
	mustStatus(t, ts.Do("GET", "/v1/threads", bob, nil), 200)
	// /metrics stays reachable to the held key, and counts the refusals.
	m := ts.Do("GET", "/metrics", admin, nil)
	for _, want := range []string{`hearth_http_rejected_total{reason="inflight_key"}`, `hearth_http_rejected_total{reason="inflight_ip"}`} {
		if m.Status != 200 || !strings.Contains(string(m.Body), want) {
			t.Fatalf("metrics lack %s: %d", want, m.Status)
		}
	}
}

// A request body that keeps arriving fast enough but not whole within the
// body time limit is cut off with 408 naming the limit; uploads get their
// own, longer limit.
func TestBodyTimeLimit(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) {
		c.BodyTimeout, c.UploadBodyTimeout = 700*time.Millisecond, 20*time.Second
		c.BodyMinRate, c.BodyGrace = 100, 100*time.Millisecond
	}))
	send := func(method, path, key string, total int) (int, string) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		auth := ""
		if key != "" {
			auth = "Authorization: Bearer " + key + "\r\n"
		}
		body := strings.Repeat("a", total)
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: hearth\r\n%sContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", method, path, auth, len(body))
		go func() { // 50 bytes every 50 ms: well above the minimum rate
			for i := 0; i < len(body); i += 50 {
				if _, err := conn.Write([]byte(body[i:min(i+50, len(body))])); err != nil {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, body := send("POST", "/v1/threads", servertest.AdminKey, 2000)
	if status != 408 || !strings.Contains(body, "REQUEST_TIMEOUT") || !strings.Contains(body, "within the limit of 700ms") {
		t.Fatalf("slow JSON body: %d %s", status, body)
	}
	createMemory(t, ts, servertest.AdminKey, map[string]any{"name": "kb", "embedding_model": hashModel})
	url := signedURL(t, ts, servertest.AdminKey, "kb", "a.txt", nil)
	if status, body := send("PUT", strings.TrimPrefix(url, ts.URL), "", 1000); status != 200 {
		t.Fatalf("upload within its own limit: %d %s", status, body)
	}
}

// A request refused over the in-flight cap is answered at once, even when
// its body has not arrived: the server does not wait to read the body
// first (it closes the connection instead).
func TestInFlightRefusalDoesNotWaitForBody(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) {
		c.MaxInFlightPerKey = 1
		c.BodyIdleTimeout, c.BodyGrace, c.BodyTimeout = 15*time.Second, 15*time.Second, 15*time.Second
	}))
	admin := servertest.AdminKey
	h := holdBody(t, ts, "POST", "/v1/threads", admin, "application/json")
	refusedInFlight(t, func() *servertest.Response { return ts.Do("GET", "/v1/threads", admin, nil) }, "limit is 1 requests at once per API key", h)
	extra := holdBody(t, ts, "POST", "/v1/threads", admin, "application/json")
	extra.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(extra.conn), nil)
	if err != nil {
		t.Fatalf("no answer to a refused request whose body is pending: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || !resp.Close {
		t.Fatalf("refused request: %d, connection closed: %v", resp.StatusCode, resp.Close)
	}
}
