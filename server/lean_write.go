package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"path"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// leanResponse is the http.ResponseWriter of a lean request. It writes
// what net/http's response writes for an HTTP/1.1 request (net/http's
// server.go, response and chunkWriter, whose logic it follows step by
// step): the handler's writes go through a 2 KiB buffer, so an answer
// that ends within it gets a Content-Length and a longer or flushed one
// is chunked; headers are sorted and written as http.Header.WriteSubset
// writes them, then Date, Content-Length, Content-Type (sniffed when the
// handler set none), Connection and Transfer-Encoding. The differential
// tests (lean_diff_test.go) hold it byte for byte to net/http.
type leanResponse struct {
	c       *leanConn
	req     *http.Request
	reqBody *leanBody // nil without a body
	cancel  context.CancelFunc

	handlerHeader http.Header
	// snap is the header as it was at WriteHeader (net/http's
	// chunkWriter.header); it lives in the connection.
	snap        *leanSnap
	wroteHeader bool
	status      int
	handlerDone bool
	// contentLength is the handler's declared length, or -1.
	contentLength int64
	written       int64
	wantsClose    bool

	closeAfterReply     bool
	requestBodyLimitHit bool

	w         *bufio.Writer // the 2 KiB buffer before chunking
	cwWrote   bool          // chunkWriter.wroteHeader
	chunking  bool
	trailers  []string
	clenBuf   [10]byte
	statusBuf [3]byte
	dateBuf   [len(http.TimeFormat)]byte
}

// bufferBeforeChunkingSize is net/http's buffer before chunking.
const bufferBeforeChunkingSize = 2048

var _ http.ResponseWriter = (*leanResponse)(nil)

func (w *leanResponse) Header() http.Header { return w.handlerHeader }

func (w *leanResponse) WriteHeader(code int) {
	if w.wroteHeader {
		caller := leanRelevantCaller()
		w.c.l.logf("http: superfluous response.WriteHeader call from %s (%s:%d)", caller.Function, path.Base(caller.File), caller.Line)
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		bw := w.c.bufw
		writeStatusLine(bw, code, w.statusBuf[:])
		_ = w.handlerHeader.WriteSubset(bw, excludedHeadersNoBody)
		bw.WriteString("\r\n")
		_ = bw.Flush()
		return
	}
	w.wroteHeader = true
	w.status = code
	w.snap.take(w.handlerHeader)
	if cl := headerGet(w.handlerHeader, "Content-Length"); cl != "" {
		v, err := strconv.ParseInt(cl, 10, 64)
		if err == nil && v >= 0 {
			w.contentLength = v
		} else {
			w.c.l.logf("http: invalid Content-Length of %q", cl)
			w.handlerHeader.Del("Content-Length")
		}
	}
}

// leanRelevantCaller is the first caller outside the lean writer, named
// in the log line of a superfluous WriteHeader as net/http names it.
func leanRelevantCaller() runtime.Frame {
	pc := make([]uintptr, 16)
	n := runtime.Callers(2, pc)
	frames := runtime.CallersFrames(pc[:n])
	var frame runtime.Frame
	for more := true; more; {
		frame, more = frames.Next()
		if !strings.Contains(frame.Function, "server.(*leanResponse)") {
			return frame
		}
	}
	return frame
}

// headerGet is http.Header's exact-key get.
func headerGet(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

var excludedHeadersNoBody = map[string]bool{"Content-Length": true, "Transfer-Encoding": true}

func (w *leanResponse) Write(p []byte) (int, error) { return w.write(len(p), p, "") }

func (w *leanResponse) WriteString(s string) (int, error) { return w.write(len(s), nil, s) }

func (w *leanResponse) write(n int, b []byte, s string) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if n == 0 {
		return 0, nil
	}
	if !bodyAllowedForStatus(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	w.written += int64(n)
	if w.contentLength != -1 && w.written > w.contentLength {
		return 0, http.ErrContentLength
	}
	if b != nil {
		return w.w.Write(b)
	}
	return w.w.WriteString(s)
}

// FlushError sends what the handler wrote so far (the SSE writer's
// flush through http.ResponseController).
func (w *leanResponse) FlushError() error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	err := w.w.Flush()
	if !w.cwWrote {
		w.writeHeader(nil)
	}
	if e2 := w.c.bufw.Flush(); err == nil {
		err = e2
	}
	return err
}

// Flush implements http.Flusher.
func (w *leanResponse) Flush() { _ = w.FlushError() }

// SetReadDeadline sets the connection's read deadline, for
// http.ResponseController and connControl.
func (w *leanResponse) SetReadDeadline(t time.Time) error { return w.c.rwc.SetReadDeadline(t) }

// SetWriteDeadline sets the connection's write deadline.
func (w *leanResponse) SetWriteDeadline(t time.Time) error { return w.c.setWriteDeadline(t) }

func bodyAllowedForStatus(status int) bool {
	return !(status >= 100 && status <= 199 || status == 204 || status == 304)
}

// chunkWriter is net/http's chunkWriter: what the 2 KiB buffer flushes
// into. The first write sends the header.
type chunkWriter struct{ c *leanConn }

func (cw chunkWriter) Write(p []byte) (int, error) {
	w := cw.c.cur
	if !w.cwWrote {
		w.writeHeader(p)
	}
	if w.req.Method == "HEAD" {
		return len(p), nil
	}
	bw := w.c.bufw
	if w.chunking {
		var hex [16]byte
		bw.Write(strconv.AppendInt(hex[:0], int64(len(p)), 16))
		if _, err := bw.WriteString("\r\n"); err != nil {
			w.c.rwc.Close()
			return 0, err
		}
	}
	n, err := bw.Write(p)
	if w.chunking && err == nil {
		_, err = bw.WriteString("\r\n")
	}
	if err != nil {
		w.c.rwc.Close()
	}
	return n, err
}

// closeChunks ends a chunked body (chunkWriter.close).
func (w *leanResponse) closeChunks() {
	if !w.cwWrote {
		w.writeHeader(nil)
	}
	if w.chunking {
		bw := w.c.bufw
		bw.WriteString("0\r\n")
		if t := w.finalTrailers(); t != nil {
			_ = t.Write(bw)
		}
		bw.WriteString("\r\n")
	}
}

func (w *leanResponse) finalTrailers() http.Header {
	var t http.Header
	for k, vv := range w.handlerHeader {
		if kk, found := strings.CutPrefix(k, http.TrailerPrefix); found {
			if t == nil {
				t = make(http.Header)
			}
			t[kk] = vv
		}
	}
	for _, k := range w.trailers {
		if t == nil {
			t = make(http.Header)
		}
		for _, v := range w.handlerHeader[k] {
			t.Add(k, v)
		}
	}
	return t
}

func (w *leanResponse) declareTrailer(k string) {
	k = http.CanonicalHeaderKey(k)
	if !httpguts.ValidTrailerHeader(k) {
		return
	}
	w.trailers = append(w.trailers, k)
}

// writeStatusLine writes an HTTP/1.1 status line as net/http does.
func writeStatusLine(bw *bufio.Writer, code int, scratch []byte) {
	bw.WriteString("HTTP/1.1 ")
	if text := http.StatusText(code); text != "" {
		bw.Write(strconv.AppendInt(scratch[:0], int64(code), 10))
		bw.WriteByte(' ')
		bw.WriteString(text)
		bw.WriteString("\r\n")
	} else {
		fmt.Fprintf(bw, "%03d status code %d\r\n", code, code)
	}
}

// finishRequest ends the answer after the handler returned
// (response.finishRequest).
func (w *leanResponse) finishRequest() {
	w.handlerDone = true
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	_ = w.w.Flush()
	w.closeChunks()
	_ = w.c.bufw.Flush()
	w.c.rd.disarm()
	if w.reqBody != nil {
		_ = w.reqBody.Close()
	}
}

// shouldReuseConnection reports whether the connection may serve another
// request (response.shouldReuseConnection).
func (w *leanResponse) shouldReuseConnection() bool {
	if w.closeAfterReply {
		return false
	}
	if w.req.Method != "HEAD" && w.contentLength != -1 && bodyAllowedForStatus(w.status) && w.contentLength != w.written {
		return false
	}
	if w.c.werr != nil {
		return false
	}
	return !w.closedRequestBodyEarly()
}

func (w *leanResponse) closedRequestBodyEarly() bool {
	return w.reqBody != nil && w.reqBody.didEarlyClose()
}
