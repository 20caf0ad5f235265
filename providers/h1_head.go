package providers

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/http"
	"net/textproto"

	"github.com/hearth-dev/hearth/engine/jsonfast"
)

// readHead reads an answer's head itself when the whole head is already
// in pc.br's buffer and of the plain shape upstream APIs send: HTTP/1.1, a
// final status from 200 to 599 other than 204 and 304, one Content-Length
// of digits, no Transfer-Encoding, Connection or Trailer header, every
// line of printable bytes and every key of letters, digits and '-', to a
// request other than HEAD. It makes the Response as http.ReadResponse
// would (canonical keys, trimmed values, the head's Content-Length kept)
// with three allocations: the head as one string the status and values
// are cut from, the header map, and an h1Answer holding the Response, its
// body and the value slices of up to h1Values lines. ok false: nothing
// was read, and http.ReadResponse reads the head instead.
func (pc *h1Conn) readHead(req *http.Request) (a *h1Answer, length int64, ok bool) {
	if req.Method == http.MethodHead {
		return nil, 0, false
	}
	buf, _ := pc.br.Peek(pc.br.Buffered())
	end := bytes.Index(buf, crlfcrlf)
	if end < 0 || int64(end+4) > pc.limit {
		return nil, 0, false
	}
	raw := buf[:end+2]
	lines := bytes.Count(raw, crlf)
	first := bytes.Index(raw, crlf)
	code, ok := plainStatus(raw[:first])
	if !ok {
		return nil, 0, false
	}
	length = -1
	for rest := raw[first+2:]; len(rest) > 0; {
		i := bytes.Index(rest, crlf)
		line := rest[:i]
		rest = rest[i+2:]
		k := bytes.IndexByte(line, ':')
		if k <= 0 || !tokenKey(line[:k]) || !printable(line[k+1:]) {
			return nil, 0, false
		}
		switch {
		case bytes.EqualFold(line[:k], []byte("Content-Length")):
			n, ok := digits(textproto.TrimBytes(line[k+1:]))
			if !ok || length >= 0 {
				return nil, 0, false
			}
			length = n
		case bytes.EqualFold(line[:k], []byte("Transfer-Encoding")), bytes.EqualFold(line[:k], []byte("Connection")),
			bytes.EqualFold(line[:k], []byte("Trailer")):
			return nil, 0, false
		}
	}
	if length < 0 {
		return nil, 0, false
	}
	head := string(raw)
	a = new(h1Answer)
	values := a.values[:0]
	if lines-1 > len(a.values) {
		values = make([]string, 0, lines-1)
	}
	h := make(http.Header, lines-1)
	rest := head[first+2:]
	for len(rest) > 0 {
		i := indexCRLF(rest)
		line := rest[:i]
		rest = rest[i+2:]
		k := indexColon(line)
		key := canonicalKey(line[:k])
		values = append(values, textproto.TrimString(line[k+1:]))
		if prev, ok := h[key]; ok {
			h[key] = append(prev, values[len(values)-1])
		} else {
			h[key] = values[len(values)-1 : len(values) : len(values)]
		}
	}
	pc.br.Discard(end + 4)
	a.resp = http.Response{Status: head[9:first], StatusCode: code, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, ContentLength: length, Request: req}
	return a, length, true
}

// h1Answer is the memory of an answer readHead reads, one allocation: the
// Response, its body, and the values of up to h1Values header lines.
type h1Answer struct {
	resp   http.Response
	body   h1Body
	values [h1Values]string
}

// h1Values is how many header lines an h1Answer holds the values of; an
// answer with more gets a slice of its own (upstream APIs send about six).
const h1Values = 12

var (
	crlf     = []byte("\r\n")
	crlfcrlf = []byte("\r\n\r\n")
)

// plainStatus parses "HTTP/1.1 ddd reason" with a final status 200-599
// other than 204 and 304.
func plainStatus(line []byte) (int, bool) {
	if len(line) < 12 || string(line[:9]) != "HTTP/1.1 " || (len(line) > 12 && line[12] != ' ') || !printable(line) {
		return 0, false
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return 0, false
		}
		code = code*10 + int(c-'0')
	}
	if code < 200 || code > 599 || code == http.StatusNoContent || code == http.StatusNotModified {
		return 0, false
	}
	return code, true
}

// tokenKey reports whether k is made of letters, digits and '-' only.
func tokenKey(k []byte) bool {
	for _, c := range k {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// printable reports whether b has no control byte other than a tab.
// Eight bytes at a time while none is below the space or DEL (an
// answer's header values: a few hundred bytes from hosted APIs), then
// byte by byte.
func printable(b []byte) bool {
	for len(b) >= 8 && jsonfast.Printable(binary.LittleEndian.Uint64(b)) {
		b = b[8:]
	}
	for _, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// digits parses a Content-Length: one to eighteen decimal digits.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func indexCRLF(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\r' && s[i+1] == '\n' {
			return i
		}
	}
	return len(s)
}

func indexColon(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return i
		}
	}
	return len(s)
}

// canonicalKey is textproto's canonical form of k, without allocating
// for a key already canonical or one of the common keys servers send in
// lower case.
func canonicalKey(k string) string {
	if c, ok := lowerKeys[k]; ok {
		return c
	}
	return textproto.CanonicalMIMEHeaderKey(k)
}

// lowerKeys maps the header keys servers commonly send in lower case
// (HTTP/2-style servers such as uvicorn) to their canonical form.
var lowerKeys = map[string]string{
	"content-type": "Content-Type", "content-length": "Content-Length", "date": "Date", "server": "Server",
	"content-encoding": "Content-Encoding", "vary": "Vary", "cache-control": "Cache-Control",
	"x-request-id": "X-Request-Id", "openai-processing-ms": "Openai-Processing-Ms", "retry-after": "Retry-After",
	"keep-alive": "Keep-Alive", "access-control-allow-origin": "Access-Control-Allow-Origin",
}

// h1Length reads a body of known length from the connection's buffer, as
// net/http's body does: io.EOF with the last bytes, io.ErrUnexpectedEOF
// when the connection ends before them.
type h1Length struct {
	r interface{ Read([]byte) (int, error) }
	n int64
}

func (l *h1Length) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n == 0 {
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}
