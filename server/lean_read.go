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
type leanReader struct {
	conn net.Conn

	mu      sync.Mutex
	cond    *sync.Cond
	cancel  func() // the request in flight's, or nil
	inRead  bool
	aborted bool
	hasByte bool
	byteBuf [1]byte
}

func newLeanReader(c net.Conn) *leanReader {
	r := &leanReader{conn: c}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// setCancel sets the function a failed read calls (nil: none).
func (r *leanReader) setCancel(cancel func()) {
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
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

// startBackgroundRead starts the watch for a hang-up.
func (r *leanReader) startBackgroundRead() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inRead || r.hasByte {
		return
	}
	r.inRead = true
	_ = r.conn.SetReadDeadline(time.Time{})
	go r.backgroundRead()
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
		b.rd.startBackgroundRead()
	}
	return n, err
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
