package server

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// writeHeader finalises the answer's header and writes it to the
// connection's buffer; p is the first piece of the body (sniffed for a
// Content-Type, and its length is the Content-Length when the handler
// has returned). It is net/http's chunkWriter.writeHeader for an
// HTTP/1.1 request that sent no Expect and did not hijack.
func (w *leanResponse) writeHeader(p []byte) {
	if w.cwWrote {
		return
	}
	w.cwWrote = true
	keepAlivesEnabled := !w.c.l.shuttingDown()
	isHEAD := w.req.Method == "HEAD"

	header := w.snap
	var setHeader leanExtraHeader

	trailers := false
	for i := range header.kvs {
		if strings.HasPrefix(header.kvs[i].key, http.TrailerPrefix) {
			header.kvs[i].gone = true
			trailers = true
		}
	}
	for _, v := range header.values("Trailer") {
		trailers = true
		foreachHeaderElement(v, w.declareTrailer)
	}

	te := header.get("Transfer-Encoding")
	hasTE := te != ""

	if w.handlerDone && !trailers && !hasTE && bodyAllowedForStatus(w.status) && !header.has("Content-Length") && (!isHEAD || len(p) > 0) {
		w.contentLength = int64(len(p))
		setHeader.contentLength = strconv.AppendInt(w.clenBuf[:0], int64(len(p)), 10)
	}

	hasCL := w.contentLength != -1
	if w.wantsClose {
		w.closeAfterReply = true
	}
	if header.get("Connection") == "close" || !keepAlivesEnabled {
		w.closeAfterReply = true
	}

	// Consume what the handler left of the body before answering, as
	// net/http does, unless the connection closes anyway.
	if w.req.ContentLength != 0 && !w.closeAfterReply {
		var discard, tooBig bool
		b := w.reqBody
		b.mu.Lock()
		switch {
		case b.closed:
			if !b.sawEOF {
				w.closeAfterReply = true
			}
		case b.n >= maxPostHandlerReadBytes:
			tooBig = true
		default:
			discard = true
		}
		b.mu.Unlock()
		if discard {
			_, err := io.CopyN(io.Discard, b, maxPostHandlerReadBytes+1)
			switch err {
			case nil:
				tooBig = true
			case http.ErrBodyReadAfterClose:
			case io.EOF:
				if err := b.Close(); err != nil {
					w.closeAfterReply = true
				}
			default:
				w.closeAfterReply = true
			}
		}
		if tooBig {
			w.closeAfterReply = true
			w.requestBodyLimitHit = true
			header.del("Connection")
			setHeader.connection = "close"
		}
	}

	code := w.status
	if bodyAllowedForStatus(code) {
		haveType := header.has("Content-Type")
		hasCE := len(header.get("Content-Encoding")) > 0
		if !hasCE && !haveType && !hasTE && len(p) > 0 {
			setHeader.contentType = http.DetectContentType(p)
		}
	} else {
		for _, k := range suppressedHeaders(code) {
			header.del(k)
		}
	}

	if !header.has("Date") {
		setHeader.date = appendDate(w.dateBuf[:0], time.Now())
	}

	if hasCL && hasTE && te != "identity" {
		w.c.l.logf("http: WriteHeader called with both Transfer-Encoding of %q and a Content-Length of %d", te, w.contentLength)
		header.del("Content-Length")
		hasCL = false
	}

	switch {
	case w.req.Method == "HEAD" || !bodyAllowedForStatus(code) || code == http.StatusNoContent:
		header.del("Transfer-Encoding")
	case hasCL:
		header.del("Transfer-Encoding")
	case hasTE && te == "identity":
		w.chunking = false
		w.closeAfterReply = true
		header.del("Transfer-Encoding")
	default:
		w.chunking = true
		setHeader.transferEncoding = "chunked"
		if hasTE && te == "chunked" {
			header.del("Transfer-Encoding")
		}
	}
	if w.chunking {
		header.del("Content-Length")
	}

	delConnectionHeader := w.closeAfterReply &&
		(!keepAlivesEnabled || !hasToken(header.get("Connection"), "close")) &&
		!(w.status == http.StatusSwitchingProtocols && header.get("Upgrade") != "" &&
			httpguts.HeaderValuesContainsToken(header.values("Connection"), "Upgrade"))
	if delConnectionHeader {
		header.del("Connection")
		setHeader.connection = "close"
	}

	bw := w.c.bufw
	writeStatusLine(bw, code, w.statusBuf[:])
	header.write(bw)
	setHeader.write(bw)
	bw.WriteString("\r\n")
}

// leanDate is the last Date value formatted, shared by all connections
// (a value of this process's clock: nothing to share between nodes).
var leanDate atomic.Pointer[leanDateValue]

type leanDateValue struct {
	sec int64
	b   []byte
}

// appendDate appends now in http.TimeFormat, formatting it at most once
// a second.
func appendDate(dst []byte, now time.Time) []byte {
	sec := now.Unix()
	if d := leanDate.Load(); d != nil && d.sec == sec {
		return append(dst, d.b...)
	}
	b := now.UTC().AppendFormat(nil, http.TimeFormat)
	leanDate.Store(&leanDateValue{sec: sec, b: b})
	return append(dst, b...)
}

// leanExtraHeader is net/http's extraHeader: the headers the server adds.
type leanExtraHeader struct {
	contentType, connection, transferEncoding string
	date, contentLength                       []byte
}

func (h leanExtraHeader) write(w interface {
	Write([]byte) (int, error)
	WriteString(string) (int, error)
}) {
	if h.date != nil {
		w.WriteString("Date: ")
		w.Write(h.date)
		w.WriteString("\r\n")
	}
	if h.contentLength != nil {
		w.WriteString("Content-Length: ")
		w.Write(h.contentLength)
		w.WriteString("\r\n")
	}
	for i, v := range [3]string{h.contentType, h.connection, h.transferEncoding} {
		if v != "" {
			w.WriteString(extraHeaderKeys[i])
			w.WriteString(": ")
			w.WriteString(v)
			w.WriteString("\r\n")
		}
	}
}

var extraHeaderKeys = [3]string{"Content-Type", "Connection", "Transfer-Encoding"}

func suppressedHeaders(status int) []string {
	switch {
	case status == 304:
		return []string{"Content-Type", "Content-Length", "Transfer-Encoding"}
	case !bodyAllowedForStatus(status):
		return []string{"Content-Length", "Transfer-Encoding"}
	}
	return nil
}

// hasToken reports whether token appears in v, ASCII case-insensitively,
// at token boundaries (net/http's hasToken).
func hasToken(v, token string) bool {
	if len(token) > len(v) || token == "" {
		return false
	}
	if v == token {
		return true
	}
	for sp := 0; sp <= len(v)-len(token); sp++ {
		if b := v[sp]; b != token[0] && b|0x20 != token[0] {
			continue
		}
		if sp > 0 && !isTokenBoundary(v[sp-1]) {
			continue
		}
		if endPos := sp + len(token); endPos != len(v) && !isTokenBoundary(v[endPos]) {
			continue
		}
		if strings.EqualFold(v[sp:sp+len(token)], token) {
			return true
		}
	}
	return false
}

func isTokenBoundary(b byte) bool { return b == ' ' || b == ',' || b == '\t' }

// foreachHeaderElement calls fn for each non-empty element of the
// comma-separated list v (net/http's foreachHeaderElement).
func foreachHeaderElement(v string, fn func(string)) {
	v = strings.Trim(v, " \t\r\n")
	if v == "" {
		return
	}
	if !strings.Contains(v, ",") {
		fn(v)
		return
	}
	for f := range strings.SplitSeq(v, ",") {
		if f = strings.Trim(f, " \t\r\n"); f != "" {
			fn(f)
		}
	}
}
