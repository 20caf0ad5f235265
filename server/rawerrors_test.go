package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestMalformedRequestsGetJSONErrors: requests net/http refuses before
// any handler runs (a NUL in Content-Type on an upload, a bad header
// name, an unsupported transfer encoding) are answered in the JSON error
// shape, through the production listener of Open.
func TestMalformedRequestsGetJSONErrors(t *testing.T) {
	s, _ := newLimited(t, Config{Addr: "127.0.0.1:0"})
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close(t.Context())
	cases := []struct {
		name, raw string
		status    int
		msg       string
	}{
		{"NUL in Content-Type", "PUT /v1/uploads/u1.1.x HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\x00x\r\nContent-Length: 1\r\n\r\nx", 400, "may not contain control characters such as NUL"},
		{"bad header name", "GET /v1/models HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n", 400, "malformed HTTP request"},
		{"missing Host", "GET /v1/models HTTP/1.1\r\n\r\n", 400, "missing required host header"},
		{"unsupported transfer encoding", "PUT /v1/uploads/u1.1.x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "unsupported transfer encoding"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.WriteString(conn, tc.raw); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			var msg, code string
			if tc.status < 500 {
				var e ErrorBody4xx
				if err := json.Unmarshal(b, &e); err != nil || e.Success || e.Error.Status != tc.status {
					t.Fatalf("not the 4xx shape: %s", b)
				}
				msg, code = e.Error.Message, e.Error.Code
			} else {
				var e ErrorBody5xx
				if err := json.Unmarshal(b, &e); err != nil || e.Success || e.Status != tc.status {
					t.Fatalf("not the 5xx shape: %s", b)
				}
				msg, code = e.Error, e.Code
			}
			if code != "BAD_REQUEST" || !strings.Contains(msg, tc.msg) {
				t.Errorf("code %q message %q, want BAD_REQUEST with %q", code, msg, tc.msg)
			}
		})
	}
}

// TestRewriteLeavesHandlerResponses: a handler's own text/plain 400 is not
// mistaken for net/http's canned answer.
func TestRewriteLeavesHandlerResponses(t *testing.T) {
	for _, p := range []string{
		"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nDate: x\r\n\r\n400 Bad Request",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nok",
		"400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n",
		"",
	} {
		if _, ok := rewriteCannedError([]byte(p)); ok {
			t.Errorf("rewrote %q", p)
		}
	}
}
