package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// leanReader reads a lean connection as net/http's connReader does: a
// failed read cancels the request in flight, and once the request body
// has been read whole a background read of one byte watches for the
// client hanging up (cancelling the request's context) while the handler
// runs. A byte it reads (a pipelined request) is kept for the next read.
//
// net/http starts that watch for every request, as soon as its body is
// read: a goroutine, a read that finds nothing and parks, and three
// deadline changes to stop it again, some 2 µs a request. Most answers
// are done well within a millisecond, so the lean path starts the watch
// only for a request still running leanWatchDelay after its handler
// started (a timer of the connection, re-armed per request): a client
// that hangs up is noticed at most leanWatchDelay later than net/http
// would notice it, and only while the handler runs that long.
type leanReader struct {
	conn  net.Conn
	timer *time.Timer

	mu     sync.Mutex
	cond   *sync.Cond
	cancel func() // the request in flight's, or nil
	// armed: a request runs and its watch may start; bodyDone: its body
	// was read whole; fired: leanWatchDelay has passed.
	armed, bodyDone, fired bool
	inRead                 bool
	aborted                bool
	hasByte                bool
	byteBuf                [1]byte
}

// leanWatchDelay is how long a request runs before its connection is
// watched for a hang-up.
const leanWatchDelay = 2 * time.Millisecond

func newLeanReader(c net.Conn) *leanReader {
	r := &leanReader{conn: c}
	r.cond = sync.NewCond(&r.mu)
	r.timer = time.AfterFunc(time.Hour, r.watch)
	r.timer.Stop()
	return r
}

// arm starts the delay before the watch of the request whose context
// cancel ends; bodyDone tells whether its body is already read.
func (r *leanReader) arm(cancel func(), bodyDone bool) {
	r.mu.Lock()
	r.cancel, r.armed, r.bodyDone, r.fired = cancel, true, bodyDone, false
	r.mu.Unlock()
	r.timer.Reset(leanWatchDelay)
}

// disarm ends the watch of the request that ended, and waits for its
// read to stop.
func (r *leanReader) disarm() {
	r.timer.Stop()
	r.mu.Lock()
	r.armed, r.cancel = false, nil
	r.mu.Unlock()
	r.abortPendingRead()
}

// watch runs when a request is still running leanWatchDelay after its
// start (on the timer's goroutine).
func (r *leanReader) watch() {
	r.mu.Lock()
	if !r.armed {
		r.mu.Unlock()
		return
	}
	r.fired = true
	r.mu.Unlock()
	r.startBackgroundRead()
}

// bodyEOF notes the end of the request body; past leanWatchDelay the
// watch starts now, on a goroutine of its own.
func (r *leanReader) bodyEOF() {
	r.mu.Lock()
	r.bodyDone = true
	fired := r.fired && r.armed
	r.mu.Unlock()
	if fired {
		go r.startBackgroundRead()
	}
}

func (r *leanReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	if r.inRead {
		r.mu.Unlock()
		panic("server: concurrent read on a lean connection")
	}
	if len(p) == 0 {
		r.mu.Unlock()
		return 0, nil
	}
	if r.hasByte {
		p[0] = r.byteBuf[0]
		r.hasByte = false
		r.mu.Unlock()
		return 1, nil
	}
	r.inRead = true
	r.mu.Unlock()
	n, err := r.conn.Read(p)
	r.mu.Lock()
	r.inRead = false
	if err != nil && r.cancel != nil {
		r.cancel()
	}
	r.mu.Unlock()
	r.cond.Broadcast()
	return n, err
}

// takeAhead appends the byte the hang-up watch read ahead, if any, to
// dst and forgets it; the watch must be stopped (disarm).
func (r *leanReader) takeAhead(dst []byte) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hasByte {
		dst = append(dst, r.byteBuf[0])
		r.hasByte = false
	}
	return dst
}

// startBackgroundRead watches for a hang-up once the request has run
// leanWatchDelay and its body is read, on the calling goroutine.
func (r *leanReader) startBackgroundRead() {
	r.mu.Lock()
	if !r.armed || !r.bodyDone || r.inRead || r.hasByte {
		r.mu.Unlock()
		return
	}
	r.inRead = true
	_ = r.conn.SetReadDeadline(time.Time{})
	r.mu.Unlock()
	r.backgroundRead()
}

func (r *leanReader) backgroundRead() {
	n, err := r.conn.Read(r.byteBuf[:])
	r.mu.Lock()
	if n == 1 {
		// A pipelined request: kept, and the request in flight goes on,
		// as net/http does since Go 1.11.
		r.hasByte = true
	}
	var ne net.Error
	if errors.As(err, &ne) && r.aborted && ne.Timeout() {
		// Expected: abortPendingRead stopped the read.
	} else if err != nil && r.cancel != nil {
		r.cancel()
	}
	r.aborted = false
	r.inRead = false
	r.mu.Unlock()
	r.cond.Broadcast()
}

// aLongTimeAgo is a deadline in the past, to stop a blocked read at once.
var aLongTimeAgo = time.Unix(1, 0)

// abortPendingRead stops the background read and waits for it.
func (r *leanReader) abortPendingRead() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.inRead {
		return
	}
	r.aborted = true
	_ = r.conn.SetReadDeadline(aLongTimeAgo)
	for r.inRead {
		r.cond.Wait()
	}
	_ = r.conn.SetReadDeadline(time.Time{})
}

// maxPostHandlerReadBytes is how much of an unread request body is read
// and discarded after the handler to keep the connection (net/http's).
const maxPostHandlerReadBytes = 256 << 10

// leanBody is a request body of Content-Length bytes, read as net/http's
// body reads a request body: exactly that many bytes then io.EOF (or
// io.ErrUnexpectedEOF when the client stops short), starting the
// hang-up watch at the end; closing it discards at most 256 KiB of what
// is left to keep the connection.
type leanBody struct {
	src        *bufio.Reader
	n          int64 // bytes left
	rd         *leanReader
	sawEOF     bool
	closed     bool
	earlyClose bool
	closing    bool // the request asked to close the connection
	mu         sync.Mutex
}

func (b *leanBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.readLocked(p)
}

func (b *leanBody) readLocked(p []byte) (int, error) {
	if b.sawEOF {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.src.Read(p)
	b.n -= int64(n)
	if err == io.EOF {
		b.sawEOF = true
		if b.n > 0 {
			err = io.ErrUnexpectedEOF
		}
	}
	if err == nil && n > 0 && b.n == 0 {
		err = io.EOF
		b.sawEOF = true
	}
	if b.sawEOF {
		b.rd.bodyEOF()
	}
	return n, err
}

// inBuffer reports whether the rest of the body is already in the
// connection's buffer (or the body has ended), so that reading it never
// reads the connection and no read deadline can apply to it
// (slowBodyGuard skips its deadlines then).
func (b *leanBody) inBuffer() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sawEOF || b.closed || int64(b.src.Buffered()) >= b.n
}

// unread is how many bytes of the body are still on the wire.
func (b *leanBody) unread() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

func (b *leanBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	var err error
	switch {
	case b.sawEOF:
	case b.closing:
	case b.n > maxPostHandlerReadBytes:
		b.earlyClose = true
	default:
		var n int64
		n, err = io.CopyN(io.Discard, lockedLeanBody{b}, maxPostHandlerReadBytes)
		if err == io.EOF {
			err = nil
		}
		if n == maxPostHandlerReadBytes {
			b.earlyClose = true
		}
	}
	b.closed = true
	return err
}

func (b *leanBody) didEarlyClose() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.earlyClose
}

// lockedLeanBody reads a body whose lock the caller holds.
type lockedLeanBody struct{ b *leanBody }

func (l lockedLeanBody) Read(p []byte) (int, error) {
	if l.b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return l.b.readLocked(p)
}
