package server_test

import (
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestServerPipelinedHandoff is the raw-socket probe of the hand-over on
// the whole server: a pipe run whose upstream takes 200 ms, with a
// request that goes to net/http pipelined behind it (a chunked POST
// /health, a JSON body by Content-Length behind Pragma, a header line
// after Transfer-Encoding) and the rest of it arriving while the run is
// in flight. Hearth's lean path answers byte for byte as Hearth with
// net/http alone (HEARTH_SERVER_HTTP1=stdlib): 200, 405, 200 for the
// chunked case, where a lost read-ahead byte served the chunk's data as
// GET /smuggled.
func TestServerPipelinedHandoff(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	start := func(leanOff bool) string {
		ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"), servertest.WithFaults(),
			servertest.WithDeterministic(), servertest.WithConfig(func(c *server.Config) { c.LeanOff = leanOff }))
		pipe := `{"name":"slow","model":"openai:gpt-4o-mini"}`
		out := rawExchange(t, strings.TrimPrefix(ts.URL, "http://"), rawPost("/v1/pipes", pipe, "Connection: close"), "", 0)
		if !strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n") {
			t.Fatalf("creating the pipe: %q", out)
		}
		return strings.TrimPrefix(ts.URL, "http://")
	}
	lean, stdlib := start(false), start(true)

	run := rawPost("/v1/pipes/run", `{"name":"slow","messages":[{"role":"user","content":"hi"}]}`, "LB-Fault: openai:slow-first-token=200ms")
	smuggled := "GET /smuggled HTTP/1.1\r\nHost: x\r\nX-Pad: "
	smuggled += strings.Repeat("p", 256-len(smuggled)-4) + "\r\n\r\n"
	// The last request asks to close: a half-close would make the hang-up
	// watch of either server cancel it, at a time neither controls.
	health := "GET /health HTTP/1.1\r\nHost: hearth\r\nConnection: close\r\n\r\n"
	runX := `{"name":"slow","messages":[{"role":"user","content":"x"}]}`
	cases := []struct{ name, first, rest string }{
		{"chunk size", run + "POST /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
			"100\r\n" + smuggled + "\r\n0\r\n\r\n" + health},
		{"json body", run + "POST /v1/pipes/run HTTP/1.1\r\nHost: x\r\nPragma: no-cache\r\nAuthorization: Bearer " + servertest.AdminKey +
			"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(runX)) + "\r\n\r\n",
			runX + health},
		{"header line", run + "POST /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n",
			"X-After: v\r\n\r\n0\r\n\r\n" + health},
	}
	for _, tc := range cases {
		// The rest is written 50 ms after the run: while its upstream
		// holds it (the hang-up watch reads the first byte of the rest).
		want := normalizeAnswers(rawExchange(t, stdlib, tc.first, tc.rest, 50*time.Millisecond))
		got := normalizeAnswers(rawExchange(t, lean, tc.first, tc.rest, 50*time.Millisecond))
		if got != want {
			t.Errorf("%s: lean answered\n%s\nstdlib answered\n%s", tc.name, got, want)
		}
		if n := strings.Count(want, "HTTP/1.1 "); n != 3 || strings.Contains(want, "smuggled") {
			t.Errorf("%s: stdlib answered %d times:\n%s", tc.name, n, want)
		}
	}
}

// rawPost is a POST of body as the admin, with extra header lines.
func rawPost(path, body string, headers ...string) string {
	h := ""
	for _, l := range headers {
		h += l + "\r\n"
	}
	return "POST " + path + " HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer " + servertest.AdminKey +
		"\r\nContent-Type: application/json\r\n" + h + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// rawExchange writes first, then rest after pause, and reads every
// answer until the server closes.
func rawExchange(t *testing.T, addr, first, rest string, pause time.Duration) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	read := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(c)
		read <- string(b)
	}()
	if _, err := io.WriteString(c, first); err != nil {
		t.Fatal(err)
	}
	if rest != "" {
		time.Sleep(pause)
		_, _ = io.WriteString(c, rest)
	}
	return <-read
}

var hostPort = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)

var answerVaries = regexp.MustCompile(`(?mi)^(date|lb-request-id|lb-trace-id|traceparent|server-timing|x-request-id): [^\r]*\r$`)

// normalizeAnswers blanks the header values that differ between two
// servers given the same requests, and their addresses (of one length:
// ephemeral ports have five digits).
func normalizeAnswers(s string) string {
	return hostPort.ReplaceAllString(answerVaries.ReplaceAllString(s, "$1: -\r"), "HOST")
}
