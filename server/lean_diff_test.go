package server

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// leanReq builds a request head with a Host and the given lines.
func leanReq(line string, headers ...string) string {
	return line + "\r\nHost: example.com\r\n" + strings.Join(append(headers, ""), "\r\n") + "\r\n"
}

func post(path, body string, headers ...string) string {
	return leanReq("POST "+path+" HTTP/1.1", append(headers, "Content-Length: "+strconv.Itoa(len(body)))...) + body
}

// leanDiffCases are raw requests (one or several on a connection) that
// the lean path must answer byte for byte as net/http does: simple ones
// it serves, and every kind it must hand over.
var leanDiffCases = []struct {
	name, raw string
	// lean is how the lean side must have served the requests that
	// reached the handler, in order ("L": lean path, "N": net/http).
	lean string
}{
	{"GET", leanReq("GET /echo HTTP/1.1"), "L"},
	{"GET query", leanReq("GET /echo?a=1&b=%20x&c HTTP/1.1"), "L"},
	{"POST json", post("/echo", `{"a":1}`, "Content-Type: application/json", "Authorization: Bearer k"), "L"},
	{"lowercase and duplicate headers", post("/echo", "x", "content-type: a/b", "x-dup: 1", "X-DUP: 2", "x-Mixed-CASE: v", "X_Under: u"), "L"},
	{"odd values", leanReq("GET /echo HTTP/1.1", "X-Space:   padded\t ", "X-Empty:", "X-Tab:\tt", "X-High: caf\xc3\xa9"), "L"},
	{"connection close", leanReq("GET /echo HTTP/1.1", "Connection: close"), "L"},
	{"connection keep-alive", leanReq("GET /echo HTTP/1.1", "Connection: Keep-Alive"), "L"},
	{"pipelined", leanReq("GET /echo HTTP/1.1") + post("/echo", "abc") + leanReq("GET /json?x HTTP/1.1"), "LLL"},
	{"pipelined after a slow answer", leanReq("GET /slow HTTP/1.1") + post("/echo", "abc") + leanReq("GET /slow HTTP/1.1") + leanReq("GET /echo?x HTTP/1.1"), "LLLL"},
	{"slow answer, then the client's end", leanReq("GET /slow HTTP/1.1"), "L"},
	{"pipelined with close", leanReq("GET /echo HTTP/1.1", "Connection: close") + leanReq("GET /echo HTTP/1.1"), "L"},
	{"body shorter than length", leanReq("POST /echo HTTP/1.1", "Content-Length: 10") + "abc", "L"},
	{"body longer than length", leanReq("POST /echo HTTP/1.1", "Content-Length: 2") + "abcdef", "L"},
	{"body then garbage", post("/echo", "ab") + "garbage\r\n\r\n", "L"},
	{"length zero", leanReq("POST /echo HTTP/1.1", "Content-Length: 0"), "L"},
	{"length leading zeros", leanReq("POST /echo HTTP/1.1", "Content-Length: 003") + "abc", "L"},
	{"unread body", post("/unread", "some body") + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"unread large body", post("/unread", strings.Repeat("b", 300<<10)) + leanReq("GET /echo HTTP/1.1"), "L"},
	{"partial body", post("/partial", strings.Repeat("p", 40)) + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"closed body", post("/bodyclose", "abcdefgh") + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"closed body with close", post("/bodyclose", "abcdefgh", "Connection: close"), "L"},
	{"HEAD", leanReq("HEAD /echo HTTP/1.1") + leanReq("HEAD /empty HTTP/1.1") + leanReq("HEAD /big HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "LLLL"},
	{"empty", leanReq("GET /empty HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"204", leanReq("GET /204 HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"304", leanReq("GET /304 HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"sniff", leanReq("GET /sniff HTTP/1.1"), "L"},
	{"big", leanReq("GET /big HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"big single write", leanReq("GET /bigone HTTP/1.1"), "L"},
	{"flush", leanReq("GET /flush HTTP/1.1") + leanReq("GET /flush-empty HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "LLL"},
	{"answer close", leanReq("GET /close HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "L"},
	{"length short", leanReq("GET /cl-short HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "L"},
	{"length long", leanReq("GET /cl-long HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "L"},
	{"length bad", leanReq("GET /cl-bad HTTP/1.1"), "L"},
	{"trailer", leanReq("GET /trailer HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"103", leanReq("GET /103 HTTP/1.1"), "L"},
	{"599", leanReq("GET /599 HTTP/1.1"), "L"},
	{"header after WriteHeader", leanReq("GET /after HTTP/1.1"), "L"},
	{"odd answer headers", leanReq("GET /odd-headers HTTP/1.1"), "L"},
	{"content encoding", leanReq("GET /gzip HTTP/1.1"), "L"},
	{"te identity", leanReq("GET /te-identity HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "L"},
	{"te chunked", leanReq("GET /te-chunked HTTP/1.1"), "L"},
	{"superfluous WriteHeader", leanReq("GET /superfluous HTTP/1.1"), "L"},
	{"panic", leanReq("GET /panic HTTP/1.1") + leanReq("GET /echo HTTP/1.1"), "L"},
	{"panic after flush", leanReq("GET /panic-after HTTP/1.1"), "L"},
	{"crlf after POST", post("/echo", "ab") + "\r\n\r\n" + leanReq("GET /echo HTTP/1.1"), "LL"},
	{"crlf after GET", leanReq("GET /echo HTTP/1.1") + "\r\n" + leanReq("GET /echo HTTP/1.1"), "L"},
	{"io.Copy", leanReq("GET /copy-short HTTP/1.1") + leanReq("GET /copy-long HTTP/1.1") + leanReq("GET /copy-typed HTTP/1.1") + leanReq("HEAD /copy-long HTTP/1.1"), "LLLL"},
	{"ServeContent", leanReq("GET /serve-content HTTP/1.1") + leanReq("GET /serve-content HTTP/1.1", "Range: bytes=5-20") + leanReq("GET /serve-content HTTP/1.1", "If-Modified-Since: Sun, 09 Sep 2001 01:46:40 GMT"), "LLL"},
	{"options", leanReq("OPTIONS /echo HTTP/1.1"), "L"},
	{"custom method", leanReq("PURGE /echo HTTP/1.1"), "L"},
	{"path characters", leanReq("GET /a-b_c.d~e$f&g+h,i:j;k=l@m HTTP/1.1"), "L"},

	// Handed over to net/http.
	{"HTTP/1.0", "GET /echo HTTP/1.0\r\nHost: example.com\r\n\r\n", "N"},
	{"HTTP/1.0 keep-alive", "GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /echo HTTP/1.0\r\n\r\n", "NN"},
	{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "N"},
	{"no Host", "GET /echo HTTP/1.1\r\n\r\n", ""},
	{"two Hosts", "GET /echo HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", ""},
	{"bad Host", "GET /echo HTTP/1.1\r\nHost: a b\r\n\r\n", ""},
	{"empty Host", "GET /echo HTTP/1.1\r\nHost:\r\n\r\n", "L"},
	{"absolute form", leanReq("GET http://example.com/echo HTTP/1.1"), "N"},
	{"asterisk", leanReq("OPTIONS * HTTP/1.1"), ""},
	{"CONNECT", leanReq("CONNECT example.com:443 HTTP/1.1"), "N"},
	{"escaped path", leanReq("GET /a%2Fb HTTP/1.1"), "N"},
	{"bad escape", leanReq("GET /a%zz HTTP/1.1"), ""},
	{"double slash", leanReq("GET //echo HTTP/1.1"), "N"},
	{"dot segment", leanReq("GET /a/./echo HTTP/1.1"), "N"},
	{"dot dot segment", leanReq("GET /a/../echo HTTP/1.1"), "N"},
	{"trailing dot", leanReq("GET /a/. HTTP/1.1"), "N"},
	{"fragment", leanReq("GET /echo#frag HTTP/1.1"), "N"},
	{"backslash", leanReq("GET /a\\b HTTP/1.1"), "N"},
	{"quote in path", leanReq("GET /a\"b HTTP/1.1"), "N"},
	{"bang in path", leanReq("GET /a!b HTTP/1.1"), "N"},
	{"empty query", leanReq("GET /echo? HTTP/1.1"), "N"},
	{"query with fragment", leanReq("GET /echo?a#b HTTP/1.1"), "N"},
	{"lowercase proto", leanReq("GET /echo http/1.1"), ""},
	{"two spaces", leanReq("GET  /echo HTTP/1.1"), ""},
	{"bad method", leanReq("G(T /echo HTTP/1.1"), ""},
	{"no version", "GET /echo\r\nHost: x\r\n\r\n", ""},
	{"chunked body", leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked") + "3\r\nabc\r\n0\r\n\r\n", "N"},
	{"chunked and length", leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked", "Content-Length: 3") + "3\r\nabc\r\n0\r\n\r\n", "N"},
	{"unknown coding", leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: gzip") + "abc", ""},
	{"two lengths", leanReq("POST /echo HTTP/1.1", "Content-Length: 3", "Content-Length: 3") + "abc", "N"},
	{"two different lengths", leanReq("POST /echo HTTP/1.1", "Content-Length: 3", "Content-Length: 4") + "abcd", ""},
	{"signed length", leanReq("POST /echo HTTP/1.1", "Content-Length: +3") + "abc", ""},
	{"length with space", leanReq("POST /echo HTTP/1.1", "Content-Length: 3 ") + "abc", "L"},
	{"empty length", leanReq("POST /echo HTTP/1.1", "Content-Length:") + "abc", ""},
	{"huge length", leanReq("POST /echo HTTP/1.1", "Content-Length: 99999999999999999999") + "abc", ""},
	{"expect", leanReq("POST /echo HTTP/1.1", "Expect: 100-continue", "Content-Length: 3") + "abc", "N"},
	{"bad expect", leanReq("POST /echo HTTP/1.1", "Expect: something", "Content-Length: 3") + "abc", ""},
	{"upgrade", leanReq("GET /echo HTTP/1.1", "Connection: Upgrade", "Upgrade: websocket"), "N"},
	{"h2c upgrade", leanReq("GET /echo HTTP/1.1", "Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"), "N"},
	{"connection list", leanReq("GET /echo HTTP/1.1", "Connection: keep-alive, close"), "N"},
	{"connection other", leanReq("GET /echo HTTP/1.1", "Connection: X-Foo", "X-Foo: bar"), "N"},
	{"pragma", leanReq("GET /echo HTTP/1.1", "Pragma: no-cache"), "N"},
	{"trailer header", leanReq("POST /echo HTTP/1.1", "Trailer: X-A", "Content-Length: 1") + "a", "N"},
	{"obs-fold", leanReq("GET /echo HTTP/1.1", "X-Fold: a", " b"), "N"},
	{"space before colon", leanReq("GET /echo HTTP/1.1", "X-A : b"), ""},
	{"bad header name", leanReq("GET /echo HTTP/1.1", "X(A): b"), ""},
	{"NUL in value", leanReq("GET /echo HTTP/1.1", "Content-Type: a\x00b"), ""},
	{"DEL in value", leanReq("GET /echo HTTP/1.1", "X-A: a\x7fb"), ""},
	{"CR in value", leanReq("GET /echo HTTP/1.1", "X-A: a\rb"), ""},
	{"bare LF", "GET /echo HTTP/1.1\nHost: example.com\n\n", "N"},
	{"bare LF in headers", "GET /echo HTTP/1.1\r\nHost: example.com\nX-A: b\r\n\r\n", "N"},
	{"no colon", leanReq("GET /echo HTTP/1.1", "NoColon"), ""},
	{"many headers", leanReq("GET /echo HTTP/1.1", strings.Repeat("X-Many: v\r\n", 80)+"X-Last: v"), "N"},
	{"large head", leanReq("GET /echo HTTP/1.1", "X-Big: "+strings.Repeat("a", 5000)), "N"},
	{"head past the limit", leanReq("GET /echo HTTP/1.1", "X-Huge: "+strings.Repeat("a", 70<<10)), ""},
	{"simple then handed over then simple", leanReq("GET /echo HTTP/1.1") + "GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + leanReq("GET /echo?again HTTP/1.1"), "LNN"},
	{"simple then chunked then simple", leanReq("GET /echo HTTP/1.1") + leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked") + "3\r\nabc\r\n0\r\n\r\n" + leanReq("GET /echo?after HTTP/1.1"), "LNN"},
	{"handed over io.Copy", leanReq("POST /echo HTTP/1.1", "Transfer-Encoding: chunked") + "3\r\nabc\r\n0\r\n\r\n" + leanReq("GET /copy-long HTTP/1.1") + leanReq("GET /copy-short HTTP/1.1"), "NNN"},
	{"simple then bad", leanReq("GET /echo HTTP/1.1") + "BAD\r\n\r\n", "L"},
	{"partial head", "GET /echo HTTP/1.1\r\nHost: exa", ""},
	{"nothing", "", ""},
}

// TestLeanDiff: every raw request gets the same bytes back from the lean
// path as from net/http alone (Date values aside).
func TestLeanDiff(t *testing.T) {
	p := startLeanPair(t, handlerFunc(leanDiffHandler), LeanConfig{ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	for _, tc := range leanDiffCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := normalize(exchange(t, p.plain, tc.raw), p.plain)
			out, from := exchangeFrom(t, p.lean, tc.raw)
			if got := normalize(out, p.lean); got != want {
				t.Errorf("lean answered\n%q\nnet/http answered\n%q", got, want)
			}
			var paths string
			for _, lean := range p.served(from) {
				paths += map[bool]string{true: "L", false: "N"}[lean]
			}
			if paths != tc.lean {
				t.Errorf("served %q, want %q", paths, tc.lean)
			}
		})
	}
}
