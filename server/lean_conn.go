package server

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync/atomic"
	"time"
)

// leanConn is one connection the lean path serves.
type leanConn struct {
	l    *LeanListener
	rwc  net.Conn
	rd   *leanReader
	bufr *bufio.Reader
	bufw *bufio.Writer
	// bodyBuf buffers up to 2 KiB of the body of cur, the request being
	// answered, before it is chunked; snap holds cur's header snapshot.
	// Both are reused: a handler may not write after it returned
	// (net/http pools the buffer likewise).
	bodyBuf *bufio.Writer
	snap    leanSnap
	cur     *leanResponse
	// readErr is the read error that cut a head short, for net/http
	// after the bytes read (handoff).
	readErr error
	// werr is the first error writing to the connection.
	werr error
	// writeDeadline is the state of the connection's write deadline:
	// writeDeadlineNone, or writeDeadlineSet by the request being
	// answered, or writeDeadlineLeft by an earlier one (cleared before the
	// next write to the connection unless set again first,
	// lean_write_deadline.go). Accessed atomically: a handler's goroutine
	// sets it, the connection's reads it after the handler.
	writeDeadline atomic.Uint32
	// ctx carries what net/http's connection context carries: the
	// server (http.ServerContextKey) and the local address.
	ctx        context.Context
	remoteAddr string
	lastMethod string
	// headerHint is how many header entries the last answer's handler
	// set: the next answer's header map is made that large, so that it
	// does not grow as they are added (a map of more than eight entries
	// grows from a small map into a table: an allocation more, and 1.2
	// instead of 0.7 µs for nine entries on the benchmark machine;
	// Hearth's run answers set nine). Per connection, in this process:
	// nothing to share between Hearth nodes.
	headerHint int

	// state is a leanState, changed atomically (LeanListener.setState);
	// stateAt is when the connection was accepted.
	state   atomic.Int32
	stateAt time.Time
}

type leanState int

const (
	leanNew leanState = iota
	leanActive
	leanIdle
	// leanGone: the listener closed or dropped the connection.
	leanGone
)

// leanConnWriter writes to the connection and notes its first error
// (net/http's checkConnErrorWriter).
type leanConnWriter struct{ c *leanConn }

func (w leanConnWriter) Write(p []byte) (int, error) {
	w.c.clearLeftWriteDeadline()
	n, err := w.c.rwc.Write(p)
	if err != nil && w.c.werr == nil {
		w.c.werr = err
	}
	return n, err
}

// serve reads and answers requests while they are simple; the first
// that is not goes to net/http with the connection (handoff).
func (c *leanConn) serve() {
	defer c.l.wg.Done()
	var inFlight *leanResponse
	handedOff := false
	defer func() {
		if err := recover(); err != nil && err != http.ErrAbortHandler {
			const size = 64 << 10
			buf := make([]byte, size)
			buf = buf[:runtime.Stack(buf, false)]
			c.l.logf("http: panic serving %v: %v\n%s", c.remoteAddr, err, buf)
		}
		if handedOff {
			return
		}
		if inFlight != nil {
			inFlight.cancel()
			c.rd.disarm()
			if inFlight.reqBody != nil {
				_ = inFlight.reqBody.Close()
			}
		}
		_ = c.bufw.Flush()
		_ = c.rwc.Close()
		c.l.forget(c)
	}()
	if d := c.l.cfg.ReadHeaderTimeout; d > 0 {
		_ = c.rwc.SetReadDeadline(time.Now().Add(d))
	}
	for {
		if c.lastMethod == "POST" {
			peek, _ := c.bufr.Peek(4)
			_, _ = c.bufr.Discard(numLeadingCRorLF(peek))
		}
		var tmpl http.Request
		x := new(leanExchange)
		ok, err := c.readHead(&tmpl, &x.url)
		if err != nil || c.l.shuttingDown() {
			// A read error or timeout before a whole head: net/http
			// closes without an answer too, and drops a request read
			// while it shuts down.
			return
		}
		if !ok {
			handedOff = c.handoff()
			return
		}
		w := c.newResponse(&tmpl, x)
		inFlight = w
		c.l.handler.ServeHTTP(w, w.req)
		inFlight = nil
		w.cancel()
		w.finishRequest()
		c.headerHint = min(len(w.handlerHeader), maxHeaderHint)
		c.snap.reset()
		c.cur = nil
		c.leaveWriteDeadline()
		if !w.shouldReuseConnection() {
			if w.requestBodyLimitHit || w.closedRequestBodyEarly() {
				c.closeWriteAndWait()
			}
			return
		}
		if !c.l.setState(c, leanIdle) || c.l.shuttingDown() {
			return
		}
		if d := c.l.cfg.IdleTimeout; d > 0 {
			_ = c.rwc.SetReadDeadline(time.Now().Add(d))
		} else {
			_ = c.rwc.SetReadDeadline(time.Time{})
		}
		if _, err := c.bufr.Peek(4); err != nil {
			return
		}
		// The header deadline bounds the reads of the rest of the head:
		// none when it came whole (readHead clears the idle deadline).
		if b, _ := c.bufr.Peek(c.bufr.Buffered()); leanHeadEnd(b) < 0 {
			if d := c.l.cfg.ReadHeaderTimeout; d > 0 {
				_ = c.rwc.SetReadDeadline(time.Now().Add(d))
			} else {
				_ = c.rwc.SetReadDeadline(time.Time{})
			}
		}
	}
}

// readHead reads until the request head is whole in the buffer. It
// returns ok false (hand off) when the head does not fit the buffer or
// is not simple.
func (c *leanConn) readHead(req *http.Request, u *url.URL) (ok bool, err error) {
	active := false
	for n := 1; ; {
		b, err := c.bufr.Peek(n)
		if len(b) > 0 && !active {
			// Bytes of a request arrived: the connection is no longer
			// idle (net/http's StateActive).
			if !c.l.setState(c, leanActive) {
				return false, net.ErrClosed
			}
			active = true
		}
		if end := leanHeadEnd(b); end > 0 {
			ok := parseSimple(req, u, b[:end])
			if ok {
				_, _ = c.bufr.Discard(end)
			}
			return ok, nil
		}
		if err != nil {
			// A head past the buffer goes to net/http. So does a part of
			// a head the client's end, a timeout or a failed read cut
			// short, with that error after its bytes: net/http judges
			// the part as it would have (bufio's ReadLine returns a last
			// partial line without its error: a malformed one is
			// answered 400, a well-formed one ends in silence). Without
			// a byte read, net/http closes without an answer, as the
			// caller does.
			if err == bufio.ErrBufferFull {
				return false, nil
			}
			if len(b) > 0 {
				c.readErr = err
				return false, nil
			}
			return false, err
		}
		var hc leanHeadCheck
		if !hc.check(b) {
			return false, nil
		}
		n = len(b) + 1
		if m := c.bufr.Buffered(); m > n {
			n = m
		}
	}
}

// newResponse prepares req (context, remote address, body) and its writer.
func (c *leanConn) newResponse(tmpl *http.Request, x *leanExchange) *leanResponse {
	ctx, cancel := context.WithCancel(c.ctx)
	req := tmpl.WithContext(ctx)
	c.lastMethod = req.Method
	req.RemoteAddr = c.remoteAddr
	w := &x.resp
	*w = leanResponse{c: c, req: req, handlerHeader: make(http.Header, c.headerHint), contentLength: -1,
		wantsClose: req.Close, snap: &c.snap, w: c.bodyBuf, cancel: cancel}
	c.cur = w
	if req.ContentLength > 0 {
		x.body = leanBody{src: c.bufr, n: req.ContentLength, rd: c.rd, closing: req.Close}
		w.reqBody = &x.body
		req.Body = w.reqBody
	} else {
		req.Body = http.NoBody
	}
	// The idle (or header) deadline is lifted before the handler runs.
	// The connection is read again only for the body (slowBodyGuard sets
	// its own deadlines), for the hang-up watch (which lifts it first) and
	// after the answer (the loop sets the idle deadline). A body already
	// in the buffer, or none, is never read from the connection: the
	// deadline may stay then, and the loop's next one moves the
	// connection's read timer instead of adding it back to the runtime's
	// timer heap (lean_write_deadline.go).
	if req.ContentLength < 0 || int64(c.bufr.Buffered()) < req.ContentLength {
		_ = c.rwc.SetReadDeadline(time.Time{})
	}
	c.rd.arm(cancel, req.ContentLength == 0)
	return w
}

// maxHeaderHint bounds headerHint: one answer with many headers does
// not make every later header map large.
const maxHeaderHint = 32

// leanExchange holds one request's URL, body and writer in one
// allocation. It is not reused: a handler's goroutines may keep the
// request or its body past the answer.
type leanExchange struct {
	resp leanResponse
	body leanBody
	url  url.URL
}

// handoff gives the connection to net/http with every byte read so far
// in front, in the order they came: the buffer's, then the one the
// hang-up watch read ahead (which follows them on the wire).
func (c *leanConn) handoff() bool {
	c.rd.disarm()
	_ = c.rwc.SetReadDeadline(time.Time{})
	c.clearLeftWriteDeadline()
	buffered, _ := c.bufr.Peek(c.bufr.Buffered())
	pending := make([]byte, 0, len(buffered)+1)
	pending = c.rd.takeAhead(append(pending, buffered...))
	hc := newHandoffConn(c.rwc, pending, c.readErr)
	c.l.forget(c)
	return c.l.offer(hc)
}

// closeWriteAndWait half-closes the connection and waits a moment so
// the client reads the answer before the reset of its unread body
// (net/http's closeWriteAndWait).
func (c *leanConn) closeWriteAndWait() {
	_ = c.bufw.Flush()
	if tcp, ok := c.rwc.(interface{ CloseWrite() error }); ok {
		_ = tcp.CloseWrite()
	}
	time.Sleep(rstAvoidanceDelay)
}

// rstAvoidanceDelay is net/http's wait after a half-close.
const rstAvoidanceDelay = 500 * time.Millisecond

func numLeadingCRorLF(v []byte) (n int) {
	for _, b := range v {
		if b == '\r' || b == '\n' {
			n++
			continue
		}
		break
	}
	return
}
