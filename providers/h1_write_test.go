package providers

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
)

// captureServer answers every request with okAnswer (its head alone for
// HEAD) and sends the bytes
// of each request (head and body) on the returned channel.
func captureServer(t *testing.T) (string, <-chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					var raw []byte
					n := 0
					for {
						line, err := br.ReadString('\n')
						if err != nil {
							return
						}
						raw = append(raw, line...)
						if k, v, ok := textprotoField(line); ok && k == "Content-Length" {
							n, _ = strconv.Atoi(v)
						}
						if line == "\r\n" {
							break
						}
					}
					body := make([]byte, n)
					if _, err := io.ReadFull(br, body); err != nil {
						return
					}
					got <- string(raw) + string(body)
					answer := okAnswer
					if strings.HasPrefix(string(raw), "HEAD ") {
						// No body after a HEAD answer's head: net/http's transport
						// would read stray bytes as the next answer when it
						// reuses the connection before it notices them.
						answer = strings.TrimSuffix(okAnswer, `{"ok":true}`)
					}
					io.WriteString(c, answer)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), got
}

func textprotoField(line string) (string, string, bool) {
	for i := 0; i < len(line); i++ {
		if line[i] == ':' {
			return textproto.CanonicalMIMEHeaderKey(line[:i]), textproto.TrimString(line[i+1:]), true
		}
	}
	return "", "", false
}

// TestH1WritesAsTransport: the lean client puts the same bytes on the
// wire as net/http's transport for the requests Hearth sends: methods
// with and without a body, queries, escaped paths, keys as set (even
// not canonical), values trimmed, several values, a User-Agent of the
// caller's, an empty one, gzip asked for.
func TestH1WritesAsTransport(t *testing.T) {
	base, got := captureServer(t)
	lean, std := h1Callers(t, 0)
	for _, tc := range []struct {
		method, path string
		body         []byte
		header       http.Header
	}{
		{"POST", "/v1/chat/completions", []byte(`{"model":"m"}`), http.Header{"Authorization": {"Bearer sk-1"}, "X-Title": {"  padded\t"}}},
		{"POST", "/v1/embeddings?api-version=2024-02-01", []byte(`{}`), http.Header{"x-lower": {"a", "b"}, "User-Agent": {"hearth/1"}}},
		{"POST", "/empty", []byte{}, nil},
		{"POST", "/no-body", nil, http.Header{"User-Agent": {""}}},
		{"GET", "/v1/models?", nil, http.Header{"Accept-Encoding": {"identity"}}},
		{"GET", "/a%2Fb/c d", nil, nil},
		{"DELETE", "/v1/files/1", nil, nil},
		{"HEAD", "/", nil, nil},
		{"PUT", "/x", nil, nil},
	} {
		var wire [2]string
		for i, c := range []caller{std, lean} {
			st := &callState{data: tc.body}
			req, err := ctxRequest(st, context.Background(), tc.method, base+tc.path, 0)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.header {
				req.Header[k] = v
			}
			if gz := c.askGzip(req); i == 1 && !gz && tc.header["Accept-Encoding"] == nil && tc.method != "HEAD" {
				t.Fatalf("%s %s: gzip not asked for", tc.method, tc.path)
			}
			if i == 1 && !c.lean.handles(req) {
				t.Fatalf("%s %s: the lean client does not take it", tc.method, tc.path)
			}
			resp, err := c.do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			wire[i] = <-got
		}
		if wire[0] != wire[1] {
			t.Errorf("%s %s:\nnet/http: %q\nlean:     %q", tc.method, tc.path, wire[0], wire[1])
		}
	}
}
