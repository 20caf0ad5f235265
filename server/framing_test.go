package server

import (
	"bufio"
	"bytes"
	"io"
	"log"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http/httpguts"
)

// framingCases are streams of requests with the verdicts §6.1 gives the
// ones net/http serves ("" keep, "c" close after, "r" 400 and close).
var framingCases = []struct {
	name, raw string
	verdicts  []string
}{
	{"length and chunked", leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked", "Content-Length: 3") + "3\r\nabc\r\n0\r\n\r\n" + leanReq("GET /echo?after HTTP/1.1"), []string{"c", ""}},
	{"chunked then length", leanReq("POST /echo HTTP/1.1", "Content-Length: 5", "transfer-encoding: Chunked") + "3;x=y\r\nabc\r\n0\r\nX-T: 1\r\n\r\n", []string{"c"}},
	{"HTTP/1.0 chunked", "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", []string{"r"}},
	{"HTTP/1.0 chunked with length", "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\nabc" + leanReq("GET /echo HTTP/1.1"), []string{"r", ""}},
	{"chunked alone", post("/echo", "ab") + "\r\n" + leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked") + "2\r\nab\r\n0\r\n\r\n" + leanReq("GET /echo HTTP/1.1"), []string{"", "", ""}},
	{"smuggled head in a chunk", leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked") + "100\r\n" + strings.Replace(smuggled, "X-Pad", "Transfer-Encoding: chunked\r\nContent-Length: 1\r\nX-Pa", 1)[:256] + "\r\n0\r\n\r\n" + leanReq("GET /echo HTTP/1.1"), []string{"", ""}},
	{"OPTIONS *", leanReq("OPTIONS * HTTP/1.1", "Transfer-Encoding: chunked", "Content-Length: 1") + "0\r\n\r\n" + leanReq("GET /echo HTTP/1.1"), []string{"c", ""}},
	{"folded length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length:\n 2\r\n\r\nab" + leanReq("POST /echo HTTP/1.1", "Content-Length:", "\t 3 ", " ", "Transfer-Encoding: chunked") + "0\r\n\r\n", []string{"", "c"}},
	{"folded chunked", leanReq("POST /echo HTTP/1.1", "Transfer-Encoding:", " chunked") + "2\r\nab\r\n0\r\n\r\n" + leanReq("POST /echo HTTP/1.1", "Content-Length: 1", "Transfer-Encoding: ", "  Chunked") + "0\r\n\r\n" + leanReq("GET /echo HTTP/1.1"), []string{"", "c", ""}},
	{"folded", leanReq("GET /echo HTTP/1.1", "X-A: a", " b") + leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked", "Content-Length: 1") + "0\r\n\r\n", []string{"", "c"}},
}

// serverVerdicts reads raw as net/http's server does and returns the
// §6.1 verdict of each request its handler would get, from the raw heads
// (net/http deletes the two headers).
func serverVerdicts(raw []byte) []string {
	cr := &countReader{r: bytes.NewReader(raw)}
	br := bufio.NewReaderSize(cr, 4096)
	var out []string
	lastPost := false
	for {
		if lastPost {
			peek, _ := br.Peek(4)
			_, _ = br.Discard(numLeadingCRorLF(peek))
		}
		start := cr.n - int64(br.Buffered())
		req, err := http.ReadRequest(br)
		if err != nil {
			return out
		}
		head := raw[start : cr.n-int64(br.Buffered())]
		if !serverTakes(req) {
			return out
		}
		tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
		_, _ = tp.ReadLine()
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return out
		}
		_, te := h["Transfer-Encoding"]
		_, cl := h["Content-Length"]
		v := ""
		switch {
		case te && !req.ProtoAtLeast(1, 1):
			v = "r"
		case te && cl:
			v = "c"
		}
		out = append(out, v)
		if _, err := io.Copy(io.Discard, req.Body); err != nil || req.Close {
			return out
		}
		lastPost = req.Method == "POST"
	}
}

// serverTakes holds the checks net/http's server makes after reading a
// request, before its handler.
func serverTakes(req *http.Request) bool {
	if req.ProtoAtLeast(1, 1) && len(req.Header["Host"]) == 0 && req.Host == "" && req.Method != "CONNECT" {
		return false
	}
	if len(req.Header["Host"]) > 1 || !httpguts.ValidHostHeader(req.Host) {
		return false
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return false
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return false
			}
		}
	}
	if e := req.Header.Get("Expect"); e != "" && !strings.EqualFold(e, "100-continue") {
		return false
	}
	return req.ProtoMajor == 1
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// guardVerdicts feeds raw to a guard in the pieces cuts gives and asks
// it for n verdicts.
func guardVerdicts(raw, cuts []byte, n int) []string {
	g := newFramingGuard()
	for len(raw) > 0 {
		k := len(raw)
		if len(cuts) > 0 {
			k = min(int(cuts[0])+1, len(raw))
			cuts = cuts[1:]
		}
		g.feed(raw[:k])
		raw = raw[k:]
	}
	out := make([]string, n)
	for i := range out {
		switch c, r := g.next(); {
		case r:
			out[i] = "r"
		case c:
			out[i] = "c"
		}
	}
	return out
}

// TestFramingGuard: the guard frames streams of requests as net/http's
// server reads them, whole or a byte at a time.
func TestFramingGuard(t *testing.T) {
	for _, tc := range framingCases {
		if got := serverVerdicts([]byte(tc.raw)); strings.Join(got, ",") != strings.Join(tc.verdicts, ",") {
			t.Errorf("%s: net/http serves %q, want %q", tc.name, got, tc.verdicts)
		}
		for _, cuts := range [][]byte{nil, bytes.Repeat([]byte{0}, len(tc.raw)), {3, 200, 7, 1, 0, 30}} {
			if got := guardVerdicts([]byte(tc.raw), cuts, len(tc.verdicts)); strings.Join(got, ",") != strings.Join(tc.verdicts, ",") {
				t.Errorf("%s (cuts %v): guard %q, want %q", tc.name, cuts, got, tc.verdicts)
			}
		}
	}
}

// FuzzFramingGuard holds the guard to net/http's own reading: for every
// request net/http's server would hand its handler, the guard gives the
// verdict of that request's raw head, however the bytes are cut.
func FuzzFramingGuard(f *testing.F) {
	for _, tc := range framingCases {
		f.Add([]byte(tc.raw), []byte{5, 0, 0, 40})
	}
	for _, tc := range leanDiffCases {
		if len(tc.raw) < 8<<10 {
			f.Add([]byte(tc.raw), []byte{})
		}
	}
	f.Fuzz(func(t *testing.T, raw, cuts []byte) {
		want := serverVerdicts(raw)
		if got := guardVerdicts(raw, cuts, len(want)); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%q (cuts %v): guard %q, net/http %q", raw, cuts, got, want)
		}
	})
}

// TestFramingRFC9112: on both paths, a request with both Content-Length
// and Transfer-Encoding is answered and the connection closed, and one
// of HTTP/1.0 with Transfer-Encoding gets a 400 and a close; net/http
// alone keeps both connections open.
func TestFramingRFC9112(t *testing.T) {
	p := startLeanPair(t, handlerFunc(leanDiffHandler), LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	bare := startBareHTTP(t)
	after := leanReq("GET /echo?after HTTP/1.1")
	both := leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked", "Content-Length: 3") + "3\r\nabc\r\n0\r\n\r\n" + after
	old := "POST /echo HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc" + after
	options := leanReq("OPTIONS * HTTP/1.1", "Transfer-Encoding: chunked", "Content-Length: 1") + "0\r\n\r\n" + after
	for _, addr := range []string{p.plain, p.lean} {
		out := exchange(t, addr, options)
		if !strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n") || !strings.Contains(out, "Connection: close\r\n") ||
			!strings.Contains(out, "Content-Length: 0\r\n") || strings.Contains(out, "after") {
			t.Errorf("OPTIONS * length and chunked: %q", out)
		}
		out = exchange(t, addr, both)
		if !strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n") || !strings.Contains(out, "Connection: close\r\n") ||
			!strings.Contains(out, `body="abc"`) || strings.Contains(out, "after") {
			t.Errorf("length and chunked: %q", out)
		}
		out = exchange(t, addr, old)
		if !strings.HasPrefix(out, "HTTP/1.0 400 Bad Request\r\n") || !strings.Contains(out, "Connection: close\r\n") ||
			!strings.Contains(out, `"code":"BAD_REQUEST"`) || !strings.Contains(out, "Transfer-Encoding in an HTTP/1.0 request") ||
			strings.Contains(out, "after") {
			t.Errorf("HTTP/1.0 chunked: %q", out)
		}
	}
	if out := exchange(t, bare, both); !strings.Contains(out, "after") {
		t.Errorf("net/http alone closed after length and chunked: %q", out)
	}
	if out := exchange(t, bare, old); !strings.Contains(out, "after") {
		t.Errorf("net/http alone closed after HTTP/1.0 chunked: %q", out)
	}
}

// startBareHTTP serves leanDiffHandler with net/http alone, unguarded.
func startBareHTTP(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handlerFunc(leanDiffHandler), ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}
