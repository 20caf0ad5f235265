package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// JSONErrorListener wraps a listener so that the answers Go's net/http
// writes by itself, before any handler runs, leave in Hearth's JSON error
// shape like every other error. net/http refuses a malformed request (a
// NUL or another control byte in a header value such as Content-Type, a
// bad header name, a missing Host) with a canned text/plain answer
// written straight to the connection; this wrapper recognises that exact
// answer and rewrites it. Handler responses are never touched: net/http
// writes their headers sorted (Connection before Content-Type) and always
// with a Date, so they cannot match the canned form.
func JSONErrorListener(ln net.Listener) net.Listener { return jsonErrorListener{ln} }

type jsonErrorListener struct{ net.Listener }

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c}, nil
}

type jsonErrorConn struct{ net.Conn }

func (c *jsonErrorConn) Write(p []byte) (int, error) {
	out, ok := rewriteCannedError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite keeps net/http's graceful close of refused connections.
func (c *jsonErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps the kernel copy (sendfile) of large bodies.
func (c *jsonErrorConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// cannedHeaders is the header block of net/http's own error answers
// (net/http/server.go, conn.serve).
const cannedHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// cannedSplit finds a canned answer's status line (after "HTTP/1.1 ") and
// body. The canned headers follow the status line at once, so only that
// place is looked at: every response passes through here, and searching
// the whole answer for them cost each a scan of its bytes.
func cannedSplit(p []byte) (line, body []byte, ok bool) {
	rest, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 4 || rest[3] != ' ' {
		return nil, nil, false
	}
	end := bytes.IndexAny(rest, "\r\n")
	if end < 0 || !bytes.HasPrefix(rest[end:], []byte(cannedHeaders)) {
		return nil, nil, false
	}
	line, body = rest[:end], rest[end+len(cannedHeaders):]
	if bytes.Contains(body, []byte("\r\n")) {
		return nil, nil, false
	}
	return line, body, true
}

// rewriteCannedError turns one canned answer, "HTTP/1.1 <code> <text>"
// + cannedHeaders + body, into the same status with a JSON body.
func rewriteCannedError(p []byte) ([]byte, bool) {
	line, body, ok := cannedSplit(p)
	if !ok {
		return nil, false
	}
	status, err := strconv.Atoi(string(line[:3]))
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	detail := string(line[4:])
	if _, d, ok := strings.Cut(detail, ": "); ok {
		detail = d
	} else if len(body) > 0 && !bytes.HasPrefix(body, line[:3]) {
		detail = string(body)
	}
	msg := "malformed HTTP request: " + strings.ToLower(detail)
	switch detail {
	case http.StatusText(status), "invalid header value":
		msg = "malformed HTTP request: the request line or a header is not valid HTTP/1.1 (a header value, such as Content-Type, may not contain control characters such as NUL, CR or LF)"
	case "invalid header name":
		msg = "malformed HTTP request: a header name is not a valid token"
	}
	code, ok := codeOfStatus[status]
	if !ok || status >= 500 {
		code = engine.CodeBadRequest
	}
	var v any = ErrorBody4xx{Error: ErrorDetail{Status: status, Code: code, Message: msg, Docs: docsBase + strings.ToLower(code)}}
	if status >= 500 {
		v = ErrorBody5xx{Error: msg, Code: code, Status: status}
	}
	js, _ := json.Marshal(v)
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	out.WriteString("Content-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(len(js)) + "\r\n\r\n")
	out.Write(js)
	return out.Bytes(), true
}
