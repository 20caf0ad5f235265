package providers

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// defaultUserAgent is the User-Agent net/http sends when a request sets
// none.
const defaultUserAgent = "Go-http-client/1.1"

// writable reports whether writeRequest writes req byte for byte as
// net/http's Request.Write would: an ASCII host without a zone, a path
// and query without control bytes, no opaque URL.
func writable(req *http.Request) bool {
	u := req.URL
	if u.Opaque != "" || strings.IndexByte(u.Host, '%') >= 0 || !httpguts.ValidHostHeader(u.Host) || hasCTL(u.RawQuery) {
		return false
	}
	for i := 0; i < len(u.Host); i++ {
		if u.Host[i] >= 0x80 {
			return false
		}
	}
	return !hasCTL(u.EscapedPath())
}

func hasCTL(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < ' ' || b == 0x7f {
			return true
		}
	}
	return false
}

// writeRequest writes req as net/http's transport writes an HTTP/1.1
// request (https://pkg.go.dev/net/http#Request.Write): request line,
// Host, User-Agent (Go's unless the request sets one; an empty one sends
// none), Content-Length where net/http sends it, the other headers in
// key order with trimmed values, then the body. req passed handles and
// writable. The body is closed.
func writeRequest(bw *bufio.Writer, req *http.Request) error {
	if req.Body != nil {
		defer req.Body.Close()
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	u := req.URL
	bw.WriteString(method)
	bw.WriteByte(' ')
	if p := u.EscapedPath(); p != "" {
		bw.WriteString(p)
	} else {
		bw.WriteByte('/')
	}
	if u.ForceQuery || u.RawQuery != "" {
		bw.WriteByte('?')
		bw.WriteString(u.RawQuery)
	}
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(u.Host)
	bw.WriteString("\r\n")
	ua := defaultUserAgent
	if v, ok := req.Header["User-Agent"]; ok {
		ua = ""
		if len(v) > 0 {
			ua = textproto.TrimString(v[0])
		}
	}
	if ua != "" {
		writeField(bw, "User-Agent", ua)
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	if hasBody || sendsZeroLength(method) {
		bw.WriteString("Content-Length: ")
		bw.Write(strconv.AppendInt(bw.AvailableBuffer(), max(req.ContentLength, 0), 10))
		bw.WriteString("\r\n")
	}
	var stack [16]string
	keys := stack[:0]
	for k := range req.Header {
		if k != "User-Agent" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range req.Header[k] {
			writeField(bw, k, textproto.TrimString(v))
		}
	}
	if _, err := bw.WriteString("\r\n"); err != nil {
		return err
	}
	if !hasBody {
		return nil
	}
	n, err := io.Copy(bw, req.Body)
	if err != nil {
		return err
	}
	if n != req.ContentLength {
		return fmt.Errorf("http: ContentLength=%d with Body length %d", req.ContentLength, n)
	}
	return nil
}

func writeField(bw *bufio.Writer, k, v string) {
	bw.WriteString(k)
	bw.WriteString(": ")
	bw.WriteString(v)
	bw.WriteString("\r\n")
}

// sendsZeroLength reports whether net/http sends "Content-Length: 0" for
// a request of method without a body (POST, PUT and PATCH).
func sendsZeroLength(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}
