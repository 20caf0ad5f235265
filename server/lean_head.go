package server

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/hearth-dev/hearth/engine/jsonfast"
	"golang.org/x/net/http/httpguts"
)

// leanMaxHeaders bounds the header lines of a request the lean path
// serves; a request with more is handed to net/http.
const leanMaxHeaders = 64

// leanHeadEnd returns the length of the request head at the start of b,
// up to and including the blank line, or -1 while it is incomplete.
func leanHeadEnd(b []byte) int {
	i := bytes.Index(b, []byte("\r\n\r\n"))
	if i < 0 {
		return -1
	}
	return i + 4
}

// parseSimple parses head (a whole request head, ending in CRLF CRLF)
// into a request when it is simple: a subset of what net/http's
// readRequest accepts, read with the same meaning (docs/operations.md#hardening),
// into req and u. Anything outside the subset returns ok false and goes to
// net/http unread, so a request is never read two ways. The request's
// strings are substrings of one copy of head.
func parseSimple(req *http.Request, u *url.URL, head []byte) (ok bool) {
	var hc leanHeadCheck
	if !hc.check(head) || hc.host == nil {
		return false
	}
	line, target, n, clen, closing := hc.line, hc.target, hc.n, hc.clen, hc.closing
	sp := hc.sp
	s := string(head)
	req.Proto, req.ProtoMajor, req.ProtoMinor, req.Close = "HTTP/1.1", 1, 1, closing
	req.Method = s[:sp]
	req.RequestURI = s[sp+1 : sp+1+len(target)]
	u.Path, u.RawQuery, _ = strings.Cut(req.RequestURI, "?")
	req.URL = u
	h := make(http.Header, n)
	// One backing array for the values, as net/http's textproto has:
	// each header's first value is a one-element slice of it (capacity
	// one, so an append copies rather than overwrite the next).
	strs := make([]string, n)
	off := len(line) + 2
	for off < len(s)-2 {
		end := off + strings.Index(s[off:], "\r\n")
		l := s[off:end]
		off = end + 2
		colon := strings.IndexByte(l, ':')
		key := textproto.CanonicalMIMEHeaderKey(l[:colon])
		value := trimOWS(l[colon+1:])
		if key == "Host" {
			req.Host = value
			continue
		}
		if vv, ok := h[key]; ok {
			h[key] = append(vv, value)
		} else {
			strs[0] = value
			h[key], strs = strs[:1:1], strs[1:]
		}
	}
	req.Header = h
	req.ContentLength = 0
	for _, c := range clen {
		req.ContentLength = req.ContentLength*10 + int64(c-'0')
	}
	return true
}

// leanHeadCheck checks the complete lines of a request head, whole or
// still arriving, against the simple subset.
type leanHeadCheck struct {
	line, target []byte
	sp, n        int
	host, clen   []byte
	closing      bool
}

// check reports whether every complete line of b is simple; a head
// still arriving that fails is handed over at once, so net/http answers
// a bad line as soon as it has it, as it would have. A bare LF anywhere
// fails at once too.
func (hc *leanHeadCheck) check(b []byte) bool {
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			break
		}
		if i += off; i == 0 || b[i-1] != '\r' {
			return false
		}
		off = i + 1
	}
	line, rest, ok := bytes.Cut(b, []byte("\r\n"))
	if !ok {
		return true
	}
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 || !leanToken(line[:sp]) {
		return false
	}
	target, proto, ok := bytes.Cut(line[sp+1:], []byte(" "))
	if !ok || string(proto) != "HTTP/1.1" || !leanTarget(target) {
		return false
	}
	if m := line[:sp]; string(m) == "CONNECT" || string(m) == "PRI" {
		return false
	}
	hc.line, hc.target, hc.sp = line, target, sp
	for r := rest; len(r) > 0 && !bytes.HasPrefix(r, []byte("\r\n")); hc.n++ {
		l, tail, ok := bytes.Cut(r, []byte("\r\n"))
		if !ok {
			break
		}
		r = tail
		name, value, ok := leanHeaderLine(l)
		if !ok || hc.n == leanMaxHeaders {
			return false
		}
		switch {
		case len(name) < 4 || name[0]|0x20 == 'x':
			// No name that matters here is shorter or starts with X.
		case asciiEqualFold(name, "Host"):
			value = trimOWS(value)
			if hc.host != nil || !httpguts.ValidHostHeader(string(value)) {
				return false
			}
			hc.host = value
		case asciiEqualFold(name, "Content-Length"):
			value = trimOWS(value)
			if hc.clen != nil || len(value) == 0 || len(value) > 18 || !leanDigits(value) {
				return false
			}
			hc.clen = value
		case asciiEqualFold(name, "Connection"):
			value = trimOWS(value)
			switch {
			case asciiEqualFold(value, "close"):
				hc.closing = true
			case asciiEqualFold(value, "keep-alive"):
			default:
				return false
			}
		case asciiEqualFold(name, "Transfer-Encoding"), asciiEqualFold(name, "Expect"),
			asciiEqualFold(name, "Upgrade"), asciiEqualFold(name, "Trailer"),
			asciiEqualFold(name, "Pragma"), asciiEqualFold(name, "Http2-Settings"):
			return false
		}
	}
	return true
}

// leanHeaderLine splits a header line into its name and trimmed value
// when the name is a token directly followed by a colon and the value has
// no control byte but HTAB (and no DEL): what net/http takes unchanged.
func leanHeaderLine(l []byte) (name, value []byte, ok bool) {
	colon := bytes.IndexByte(l, ':')
	if colon <= 0 || !leanToken(l[:colon]) {
		return nil, nil, false
	}
	value = l[colon+1:]
	v := value
	for len(v) >= 8 && jsonfast.Printable(binary.LittleEndian.Uint64(v)) {
		v = v[8:]
	}
	for _, c := range v {
		if leanBadValueByte[c] {
			return nil, nil, false
		}
	}
	return l[:colon], value, true
}

// leanBadValueByte marks the bytes a header value may not hold: controls
// but HTAB, and DEL (httpguts.ValidHeaderFieldValue's rule).
var leanBadValueByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c < ' ' && c != '\t' || c == 0x7f
	}
	return t
}()

// leanTokenByte marks the bytes of an RFC 9110 token.
var leanTokenByte = func() (t [256]bool) {
	for c := range t {
		t[c] = httpguts.IsTokenRune(rune(c))
	}
	return t
}()

// trimOWS trims spaces and tabs at both ends (textproto's trim, for a
// value without CR or LF).
func trimOWS[T string | []byte](s T) T {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return s[i:j]
}

// leanToken reports whether b is a non-empty RFC 9110 token.
func leanToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !leanTokenByte[c] {
			return false
		}
	}
	return true
}

// leanTarget reports whether b is an origin-form target the lean path
// takes: a path of characters net/url keeps as they are (so URL.Path is
// the path and RawPath stays empty) that needs no cleaning, and an
// optional non-empty query of printable ASCII without '#'.
func leanTarget(b []byte) bool {
	path, query, hasQuery := bytes.Cut(b, []byte("?"))
	if len(path) == 0 || path[0] != '/' {
		return false
	}
	for _, c := range path {
		if !leanPathByte(c) {
			return false
		}
	}
	if bytes.Contains(path, []byte("//")) || bytes.Contains(path, []byte("/./")) ||
		bytes.Contains(path, []byte("/../")) || bytes.HasSuffix(path, []byte("/.")) ||
		bytes.HasSuffix(path, []byte("/..")) {
		return false
	}
	if hasQuery {
		if len(query) == 0 {
			return false
		}
		for _, c := range query {
			if c <= ' ' || c >= 0x7f || c == '#' {
				return false
			}
		}
	}
	return true
}

// leanPathByte reports whether c may appear in a lean path: the bytes
// net/url's path escaping leaves alone.
func leanPathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '_', '.', '~', '$', '&', '+', ',', '/', ':', ';', '=', '@':
		return true
	}
	return false
}

func leanDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// asciiEqualFold is strings.EqualFold for an ASCII name, without
// converting b to a string.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c, d := b[i], s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}
