package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/hearth-dev/hearth/engine"
)

// RFC 9112 §6.1 asks a server to close the connection after a request
// that has both Content-Length and Transfer-Encoding, and to treat
// Transfer-Encoding in an HTTP/1.0 request as faulty framing. net/http
// serves the first by its Transfer-Encoding and keeps the connection,
// ignores the second's Transfer-Encoding, and deletes both headers before
// a handler could tell. framingGuard follows the bytes net/http reads
// from a connection, framing each request as net/http does (its head,
// then a chunked body or one of Content-Length bytes), and notes those
// requests; framingHandler then answers the first with Connection: close
// and the second with a 400 and a close. The lean path never serves
// either (it hands both to net/http). The guard is per connection, in
// this process: nothing is shared between Hearth nodes.

// framingGuard frames the requests of one connection as net/http reads
// them and keeps the verdicts of RFC 9112 §6.1 by request.
type framingGuard struct {
	mu    sync.Mutex
	state uint8
	// line holds the current line while it spans reads.
	line []byte
	skip int // CR or LF bytes still skipped before a head (after a POST)
	left uint64

	// The head being read.
	first, http10, post bool
	// field is the Content-Length or Transfer-Encoding field being read
	// (fieldCL, fieldTE; fieldOther for any other), value its value so
	// far: folded lines join it until the next field or the head's end.
	field     uint8
	value     []byte
	clN       int
	cl        []byte
	teN       int
	teChunked bool

	// heads counts the heads read (each reaches the handler, OPTIONS *
	// included: guardFraming sends it there), served those the handler
	// took; flags are the heads §6.1 speaks of, by that count.
	heads, served int
	flags         []framingFlag
	// lostAt is the count from which the guard no longer knows where
	// heads start (net/http refuses such a stream and closes; a request
	// it serves past that point closes the connection): -1 while known.
	lostAt int
}

type framingFlag struct {
	index  int
	reject bool // Transfer-Encoding in HTTP/1.0: answer 400 and close; else close after the answer
}

const (
	fsHead uint8 = iota
	fsSkip
	fsBody
	fsChunkLine
	fsChunkData
	fsChunkEnd
	fsTrailer
	fsLost
)

const (
	fieldOther uint8 = iota
	fieldCL
	fieldTE
)

// maxFramingLine bounds a line the guard keeps: net/http refuses a head
// past MaxHeaderBytes (64 KiB here) and a chunk line past 4 KiB first.
const maxFramingLine = 128 << 10

func newFramingGuard() *framingGuard {
	return &framingGuard{first: true, lostAt: -1}
}

// feed frames p, the next bytes net/http reads.
func (g *framingGuard) feed(p []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(p) > 0 {
		switch g.state {
		case fsLost:
			return
		case fsSkip:
			if g.skip == 0 || (p[0] != '\r' && p[0] != '\n') {
				g.state = fsHead
				continue
			}
			g.skip--
			p = p[1:]
		case fsBody, fsChunkData:
			n := min(uint64(len(p)), g.left)
			g.left -= n
			p = p[n:]
			if g.left == 0 {
				if g.state == fsBody {
					g.endRequest()
				} else {
					g.state, g.left = fsChunkEnd, 2
				}
			}
		case fsChunkEnd:
			want := "\r\n"[2-g.left]
			if p[0] != want {
				g.lose()
				return
			}
			p = p[1:]
			if g.left--; g.left == 0 {
				g.state = fsChunkLine
			}
		default: // a line: fsHead, fsChunkLine, fsTrailer
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				if len(g.line)+len(p) > maxFramingLine {
					g.lose()
					return
				}
				g.line = append(g.line, p...)
				return
			}
			line := p[:i+1]
			if len(g.line) > 0 {
				if len(g.line)+len(line) > maxFramingLine {
					g.lose()
					return
				}
				g.line = append(g.line, line...)
				line = g.line
			}
			p = p[i+1:]
			g.onLine(line)
			g.line = g.line[:0]
		}
	}
}

// onLine takes one line, its LF included.
func (g *framingGuard) onLine(line []byte) {
	switch g.state {
	case fsChunkLine:
		// net/http: CRLF exactly, trailing blanks and an extension
		// dropped, 1 to 16 hex digits.
		if len(line) < 2 || bytes.IndexByte(line, '\r') != len(line)-2 {
			g.lose()
			return
		}
		v := bytes.TrimRight(line[:len(line)-2], " \t")
		v, _, _ = bytes.Cut(v, []byte(";"))
		n, ok := parseChunkSize(v)
		if !ok {
			g.lose()
			return
		}
		if n == 0 {
			g.state = fsTrailer
			return
		}
		g.state, g.left = fsChunkData, n
		return
	case fsTrailer:
		if isBlankLine(line) {
			g.endRequest()
		}
		return
	}
	line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
	if g.first {
		g.requestLine(line)
		return
	}
	if len(line) == 0 {
		if !g.endField() {
			return
		}
		g.endHead()
		return
	}
	if line[0] == ' ' || line[0] == '\t' {
		// A folded line continues the field before it: net/http's
		// textproto joins the two with one space, each trimmed, and
		// trims the value's start.
		if g.field != fieldOther {
			if len(g.value)+len(line) > maxFramingLine {
				g.lose()
				return
			}
			if len(g.value) > 0 {
				g.value = append(g.value, ' ')
			}
			g.value = append(g.value, bytes.Trim(line, " \t")...)
		}
		return
	}
	if !g.endField() {
		return
	}
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		g.lose()
		return
	}
	g.field = fieldOther
	switch {
	case len(name) == len("Content-Length") && asciiEqualFold(name, "content-length"):
		g.field = fieldCL
	case len(name) == len("Transfer-Encoding") && asciiEqualFold(name, "transfer-encoding"):
		g.field = fieldTE
	}
	if g.field != fieldOther {
		// textproto trims the line, then the value's start.
		g.value = append(g.value[:0], bytes.Trim(value, " \t")...)
	}
}

// endField takes the value of the Content-Length or Transfer-Encoding
// field read, folded lines joined, as net/http's readTransfer does:
// Content-Length values compared and parsed trimmed, Transfer-Encoding
// exactly "chunked" in any case. It reports false when the stream is lost.
func (g *framingGuard) endField() bool {
	field := g.field
	g.field = fieldOther
	switch field {
	case fieldCL:
		v := bytes.Trim(g.value, " \t\r\n")
		if g.clN == 0 {
			g.cl = append(g.cl[:0], v...)
		} else if !bytes.Equal(g.cl, v) {
			g.lose()
			return false
		}
		g.clN++
	case fieldTE:
		g.teN++
		g.teChunked = asciiEqualFold(g.value, "chunked")
	}
	return true
}

// requestLine reads a head's first line as net/http's parseRequestLine.
func (g *framingGuard) requestLine(line []byte) {
	method, rest, ok1 := bytes.Cut(line, []byte(" "))
	_, proto, ok2 := bytes.Cut(rest, []byte(" "))
	if !ok1 || !ok2 {
		g.lose()
		return
	}
	var major, minor int
	switch string(proto) {
	case "HTTP/1.1":
		major, minor = 1, 1
	case "HTTP/1.0":
		major, minor = 1, 0
	default:
		var ok bool
		if major, minor, ok = http.ParseHTTPVersion(string(proto)); !ok {
			g.lose()
			return
		}
	}
	g.first = false
	g.http10 = major < 1 || major == 1 && minor < 1
	g.post = string(method) == "POST"
	g.clN, g.teN, g.teChunked, g.field = 0, 0, false, fieldOther
}

// endHead notes the verdict of the head read and starts its body, framed
// as net/http's readTransfer does.
func (g *framingGuard) endHead() {
	if g.teN > 0 && (g.http10 || g.clN > 0) {
		g.flags = append(g.flags, framingFlag{index: g.heads, reject: g.http10})
	}
	g.heads++
	var n uint64
	if g.clN > 0 {
		v, err := strconv.ParseUint(string(g.cl), 10, 63)
		if err != nil {
			g.lose()
			return
		}
		n = v
	}
	g.first = true
	switch {
	case g.teN > 0 && !g.http10:
		if g.teN != 1 || !g.teChunked {
			g.lose()
			return
		}
		g.state = fsChunkLine
	case n > 0:
		g.state, g.left = fsBody, n
	default:
		g.endRequest()
	}
}

// endRequest moves past a request's body to the next head.
func (g *framingGuard) endRequest() {
	g.state = fsHead
	if g.post {
		g.state, g.skip = fsSkip, 4
	}
}

// lose stops the framing: the stream is not one net/http serves on.
func (g *framingGuard) lose() {
	g.state = fsLost
	if g.lostAt < 0 {
		g.lostAt = g.heads
	}
	g.line = nil
}

// next returns the verdict of the next request the handler takes.
func (g *framingGuard) next() (closeConn, reject bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	i := g.served
	g.served++
	for len(g.flags) > 0 && g.flags[0].index < i {
		g.flags = g.flags[1:]
	}
	if len(g.flags) > 0 && g.flags[0].index == i {
		f := g.flags[0]
		g.flags = g.flags[1:]
		return true, f.reject
	}
	return g.lostAt >= 0 && i >= g.lostAt, false
}

func parseChunkSize(v []byte) (uint64, bool) {
	if len(v) == 0 || len(v) > 16 {
		return 0, false
	}
	var n uint64
	for _, b := range v {
		switch {
		case '0' <= b && b <= '9':
			b -= '0'
		case 'a' <= b && b <= 'f':
			b -= 'a' - 10
		case 'A' <= b && b <= 'F':
			b -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(b)
	}
	return n, true
}

func isBlankLine(line []byte) bool {
	return len(line) == 1 || len(line) == 2 && line[0] == '\r'
}

// framingConn is a connection net/http serves, whose reads feed its guard.
type framingConn struct {
	net.Conn
	g *framingGuard
}

func (c *framingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.g.feed(p[:n])
	}
	return n, err
}

// CloseWrite keeps net/http's half-close of refused connections.
func (c *framingConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// framingConnRF is a framingConn over a connection that can ReadFrom,
// which net/http uses for the kernel's copy of large answers.
type framingConnRF struct{ *framingConn }

func (c framingConnRF) ReadFrom(r io.Reader) (int64, error) {
	return c.Conn.(io.ReaderFrom).ReadFrom(r)
}

type framingListener struct{ net.Listener }

func (l framingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	fc := &framingConn{Conn: c, g: newFramingGuard()}
	if _, ok := c.(io.ReaderFrom); ok {
		return framingConnRF{fc}, nil
	}
	return fc, nil
}

type framingKey struct{}

// guardFraming makes srv, serving the connections of the returned
// listener, keep RFC 9112 §6.1: it wraps ln's connections, srv's
// ConnContext and srv's Handler (framingHandler).
func guardFraming(ln net.Listener, srv *http.Server) net.Listener {
	prev := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prev != nil {
			ctx = prev(ctx, c)
		}
		if g := framingOf(c); g != nil {
			ctx = context.WithValue(ctx, framingKey{}, g)
		}
		return ctx
	}
	if _, ok := srv.Handler.(framingHandler); !ok {
		// OPTIONS * comes to the handler too, which answers it as
		// net/http's own would, after the guard's verdict.
		srv.Handler = framingHandler{h: srv.Handler, options: !srv.DisableGeneralOptionsHandler}
		srv.DisableGeneralOptionsHandler = true
	}
	return framingListener{ln}
}

// framingOf finds the guard of a connection net/http accepted.
func framingOf(c net.Conn) *framingGuard {
	for {
		switch t := c.(type) {
		case *framingConn:
			return t.g
		case framingConnRF:
			return t.g
		case *jsonErrorConn:
			c = t.Conn
		default:
			return nil
		}
	}
}

// framingHandler answers the requests RFC 9112 §6.1 speaks of: with
// Connection: close after a request with both Content-Length and
// Transfer-Encoding, and with a 400 and a close for Transfer-Encoding in
// an HTTP/1.0 request.
type framingHandler struct {
	h http.Handler
	// options: answer OPTIONS * as net/http's general OPTIONS handler.
	options bool
}

func (f framingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g, _ := r.Context().Value(framingKey{}).(*framingGuard); g != nil {
		closeConn, reject := g.next()
		if closeConn {
			w.Header().Set("Connection", "close")
		}
		if reject {
			writeFramingError(w)
			return
		}
	}
	if f.options && r.RequestURI == "*" && r.Method == "OPTIONS" {
		// net/http's globalOptionsHandler.
		w.Header().Set("Content-Length", "0")
		if r.ContentLength != 0 {
			mb := http.MaxBytesReader(w, r.Body, 4<<10)
			_, _ = io.Copy(io.Discard, mb)
		}
		return
	}
	f.h.ServeHTTP(w, r)
}

// writeFramingError answers a request whose framing is faulty.
func writeFramingError(w http.ResponseWriter) {
	const msg = "malformed HTTP request: Transfer-Encoding in an HTTP/1.0 request (faulty framing, RFC 9112 section 6.1)"
	code := engine.CodeBadRequest
	js, _ := json.Marshal(ErrorBody4xx{Error: ErrorDetail{Status: http.StatusBadRequest, Code: code, Message: msg, Docs: docsBase + strings.ToLower(code)}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(js)))
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(js)
}
