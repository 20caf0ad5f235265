package providers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// h1Conn is one keep-alive connection of an h1Client. Only the call that
// took it from the pool uses it, until its answer's body is read to the
// end (back to the pool) or closed early (closed).
type h1Conn struct {
	h      *h1Client
	addr   string
	conn   net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	idleAt time.Time
	// nwrite counts bytes handed to conn; limit is what the headers being
	// read may still use (net/http's persistConn.readLimit).
	nwrite int64
	limit  int64
	// readBy is the response header deadline left armed on conn by a call
	// whose answer needed no more reads (zero: none).
	readBy time.Time
	// raw and probeFn check an idle connection without reading from it
	// (h1_probe*.go); set once at dial.
	raw     syscall.RawConn
	probeFn func(fd uintptr) bool
	probed  int
	peek    [1]byte
	// abortFn is abort, bound once at dial for context.AfterFunc.
	abortFn func()
	// ab is the call using pc when it came with a callAbort, and
	// releaseFn is release, bound once at dial (h1_abort.go).
	ab        *callAbort
	releaseFn func() bool
	// turn is the CPU turn of the call using pc: given back while a read
	// waits on the connection (engine/turn.go); nil between calls.
	turn engine.Turn
}

func newH1Conn(h *h1Client, addr string, conn net.Conn) *h1Conn {
	pc := &h1Conn{h: h, addr: addr, conn: conn}
	pc.br = bufio.NewReaderSize(pc, 4096)
	pc.bw = bufio.NewWriterSize(pc, 4096)
	pc.abortFn = pc.abort
	pc.releaseFn = pc.release
	if sc, ok := conn.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			pc.raw = raw
			pc.probeFn = pc.probe
		}
	}
	return pc
}

// Write counts what reaches the connection, so a failed write can tell
// whether any byte of the request went out.
func (pc *h1Conn) Write(p []byte) (int, error) {
	n, err := pc.conn.Write(p)
	pc.nwrite += int64(n)
	return n, err
}

// Read enforces the header size limit while an answer's headers are read.
func (pc *h1Conn) Read(p []byte) (int, error) {
	if pc.limit <= 0 {
		return 0, fmt.Errorf("read limit of %d bytes exhausted", pc.h.maxHeader)
	}
	if int64(len(p)) > pc.limit {
		p = p[:pc.limit]
	}
	if pc.turn == nil {
		n, err := pc.conn.Read(p)
		pc.limit -= int64(n)
		return n, err
	}
	pc.turn.Leave()
	n, err := pc.conn.Read(p)
	pc.turn.Return()
	pc.limit -= int64(n)
	return n, err
}

// aLongTimeAgo is a deadline in the past: setting it makes a blocked read
// or write return at once.
var aLongTimeAgo = time.Unix(1, 0)

// noLimit is the read limit while a body is read.
const noLimit = 1<<63 - 1

// roundTrip writes req and reads its answer's headers. written reports
// whether any byte of req reached the connection. On error pc is closed.
// The call's end aborts pc through ab (nil: a context.AfterFunc on ctx).
func (pc *h1Conn) roundTrip(ctx context.Context, req *http.Request, ab *callAbort) (resp *http.Response, written bool, err error) {
	var stop func() bool
	if ab != nil {
		stop = ab.use(pc)
	} else {
		stop = context.AfterFunc(ctx, pc.abortFn)
	}
	pc.nwrite = 0
	pc.turn = engine.TurnOf(ctx)
	if err := writeRequest(pc.bw, req); err != nil {
		pc.bw.Reset(pc)
		if pc.nwrite > 0 {
			err = fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", err)
		}
		return pc.fail(ctx, stop, err)
	}
	if err := pc.bw.Flush(); err != nil {
		pc.bw.Reset(pc)
		if pc.nwrite > 0 {
			err = fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", err)
		}
		return pc.fail(ctx, stop, err)
	}
	if pc.h.headerTimeout > 0 {
		pc.readBy = time.Now().Add(pc.h.headerTimeout)
		pc.conn.SetReadDeadline(pc.readBy)
	}
	pc.limit = pc.h.maxHeader
	for {
		if _, err := pc.br.Peek(1); err != nil {
			return pc.fail(ctx, stop, pc.headerError(ctx, err, false))
		}
		if r, n, ok := pc.readHead(req); ok {
			return pc.answer(ctx, stop, r, n)
		}
		resp, err = http.ReadResponse(pc.br, req)
		if err != nil {
			return pc.fail(ctx, stop, pc.headerError(ctx, err, true))
		}
		// 1xx answers are skipped; the header limit counts them all.
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	pc.limit = noLimit
	pc.clearHeaderDeadline(ctx)
	keep := !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols
	if resp.Body == http.NoBody || resp.StatusCode == http.StatusSwitchingProtocols {
		resp.Body = http.NoBody
		finish(pc, stop, keep)
		return resp, true, nil
	}
	resp.Body = &h1Body{pc: pc, rc: resp.Body, ctx: ctx, stop: stop, keep: keep}
	return resp, true, nil
}

// answer hands out an answer readHead read: its body is read from the
// connection's buffer, length bytes. When the buffer already holds the
// whole body the connection is not read again in this call, so the header
// deadline stays armed (one deadline change a call instead of two): the
// next call on pc arms its own before reading, and get clears one that
// has passed before probing pc.
func (pc *h1Conn) answer(ctx context.Context, stop func() bool, a *h1Answer, length int64) (*http.Response, bool, error) {
	pc.limit = noLimit
	if length > int64(pc.br.Buffered()) {
		pc.clearHeaderDeadline(ctx)
	}
	resp := &a.resp
	if length == 0 {
		resp.Body = http.NoBody
		finish(pc, stop, true)
		return resp, true, nil
	}
	b := &a.body
	*b = h1Body{pc: pc, ctx: ctx, stop: stop, keep: true, length: h1Length{r: pc.br, n: length}}
	b.rc = &b.length
	resp.Body = b
	return resp, true, nil
}

// clearHeaderDeadline ends the response header timeout once the head is
// read, keeping a cancellation that came meanwhile.
func (pc *h1Conn) clearHeaderDeadline(ctx context.Context) {
	if pc.h.headerTimeout > 0 {
		pc.readBy = time.Time{}
		pc.conn.SetReadDeadline(time.Time{})
		if ctx.Err() != nil {
			pc.conn.SetDeadline(aLongTimeAgo)
		}
	}
}

// abort makes a blocked read or write of pc return at once (the call's
// context ended).
func (pc *h1Conn) abort() { pc.conn.SetDeadline(aLongTimeAgo) }

// fail ends a call that got no answer: pc is closed, and an error of a
// call whose context ended is the context's cause, as net/http returns it.
func (pc *h1Conn) fail(ctx context.Context, stop func() bool, err error) (*http.Response, bool, error) {
	stop()
	pc.conn.Close()
	if ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return nil, pc.nwrite > 0, err
}

// headerError words an error met reading an answer's headers as
// net/http's transport does: the header time-out and the end of the
// connection before the first byte as they are, a broken answer (begun)
// or the header limit as a broken connection.
func (pc *h1Conn) headerError(ctx context.Context, err error, begun bool) error {
	switch {
	case pc.h.headerTimeout > 0 && isTimeout(err) && ctx.Err() == nil:
		return errHeaderTimeout
	case pc.limit <= 0:
		err = fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", pc.h.maxHeader)
	case !begun:
		return err
	}
	return fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", err)
}

// errHeaderTimeout is net/http's error when ResponseHeaderTimeout passes.
var errHeaderTimeout = errors.New("net/http: timeout awaiting response headers")

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// finish ends a call on pc: back to the pool when the answer was read
// whole, keep-alive allows it and the cancellation hook never ran;
// otherwise closed.
func finish(pc *h1Conn, stop func() bool, keep bool) {
	pc.turn = nil
	if stop() && keep {
		pc.h.put(pc)
		return
	}
	pc.conn.Close()
}

// h1Body is an answer's body on an h1Conn. Read to its end, it returns
// the connection to the pool; closed before, it closes the connection (a
// Close from another goroutine unblocks a Read in progress).
type h1Body struct {
	pc *h1Conn
	// rc is the body's reader: http.ReadResponse's, or length.
	rc     io.Reader
	length h1Length
	ctx    context.Context
	stop   func() bool
	keep   bool

	mu   sync.Mutex
	done bool
	// reading is set while a Read waits on the connection.
	reading bool
	// err is returned by every Read once the body is done.
	err error
}

// Read reads the body; a read that fails because the call's context ended
// returns the context's cause, as net/http's body does.
func (b *h1Body) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.done {
		err := b.err
		b.mu.Unlock()
		return 0, err
	}
	b.reading = true
	b.mu.Unlock()
	n, err := b.rc.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reading = false
	if err == nil {
		return n, nil
	}
	if b.done {
		return n, b.err
	}
	b.done = true
	if err == io.EOF {
		b.err = io.EOF
		finish(b.pc, b.stop, b.keep)
		return n, io.EOF
	}
	if b.ctx.Err() != nil {
		err = context.Cause(b.ctx)
	}
	b.err = err
	b.stop()
	b.pc.conn.Close()
	return n, err
}

// Close closes the connection unless the body was read to its end, or
// its end has already arrived: what is left of it is then read from what
// the connection holds, without waiting (a stream closed after its last
// event, before the chunked body's terminator was read), and the
// connection goes back to the pool.
func (b *h1Body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		if b.err == io.EOF {
			b.err = errBodyClosed
		}
		return nil
	}
	b.done, b.err = true, errBodyClosed
	if !b.reading && b.keep && b.drained() {
		finish(b.pc, b.stop, true)
		return nil
	}
	b.stop()
	b.pc.conn.Close()
	return nil
}

// maxDrain bounds what Close reads of a body's rest.
const maxDrain = 16 << 10

// drained reports whether the rest of the body was already received and
// is now read: with a deadline in the past, a read that would wait on the
// connection fails at once instead. The deadline is cleared for the pool
// only once the cancellation hook can no longer set it (finish).
func (b *h1Body) drained() bool {
	pc := b.pc
	pc.conn.SetReadDeadline(aLongTimeAgo)
	n, err := io.CopyN(io.Discard, b.rc, maxDrain)
	if err != io.EOF || n >= maxDrain {
		return false
	}
	if !b.stop() {
		return false
	}
	b.stop = alreadyStopped
	pc.readBy = time.Time{}
	pc.conn.SetReadDeadline(time.Time{})
	return true
}

// alreadyStopped stands for a cancellation hook stopped before finish.
func alreadyStopped() bool { return true }

// errBodyClosed is net/http's error for a read after Close.
var errBodyClosed = errors.New("http: read on closed response body")
