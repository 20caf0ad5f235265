package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// LeanListener serves simple HTTP/1.1 requests itself and hands every
// other connection to net/http (docs/operations.md#hardening).
//
// It owns the accept loop of the listener it wraps. Each accepted
// connection is read by Hearth's own loop while its requests are simple
// (parseSimple: a strict subset of what net/http accepts, read with the
// same meaning); the first request that is not, and everything after it
// on that connection, goes to the http.Server serving this listener:
// Accept returns the connection with the bytes already read in front, so
// net/http parses that request from its first byte as it would have, and
// answers malformed ones with its own errors. A head is handed over as
// soon as a complete line of it is not simple, so net/http answers a bad
// line when it would have; one handed over while still arriving gets
// net/http's ReadHeaderTimeout afresh (at most twice the time in all).
// The lean path saves what net/http's server spends on a request: its
// per-request response, buffers and header clone, its textproto parse
// into a Header map, and its background read (leanReader); about 4-5 µs
// of CPU and 15 allocations a gateway run (docs/benchmarks.md).
//
// Its connections live in this process only; with several Hearth nodes
// each node serves and drains its own, as with net/http.
type LeanListener struct {
	ln      net.Listener
	handler http.Handler
	cfg     LeanConfig

	handoff chan net.Conn
	done    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup

	mu       sync.Mutex
	conns    map[*leanConn]struct{}
	closed   bool
	acceptEr error
	// closing mirrors closed for the connections' checks, which read it
	// several times a request without taking mu.
	closing atomic.Bool
}

// LeanConfig holds the limits of a LeanListener, as the http.Server's.
type LeanConfig struct {
	// ReadHeaderTimeout bounds the arrival of a request's head, counted
	// from the connection's start or, for later requests, from their
	// first bytes (0: none).
	ReadHeaderTimeout time.Duration
	// IdleTimeout bounds the wait for the next request (0: none).
	IdleTimeout time.Duration
	// ErrorLog receives what net/http would log (panics); nil: log's
	// standard logger.
	ErrorLog *log.Logger
	// BaseContext is the context requests derive from; nil:
	// context.Background.
	BaseContext context.Context
}

// leanBufSize is the read buffer of a lean connection: a request head
// must fit in it to be served on the lean path (the SDK's heads are
// well under 1 KiB); a larger one goes to net/http, whose limit is
// MaxHeaderBytes.
const leanBufSize = 4 << 10

// NewLeanListener serves h on the connections ln accepts; ln is closed
// with it. Serve the returned listener with an http.Server of the same
// handler and limits, which answers the connections it hands over.
func NewLeanListener(ln net.Listener, h http.Handler, cfg LeanConfig) *LeanListener {
	l := &LeanListener{ln: ln, handler: h, cfg: cfg, handoff: make(chan net.Conn),
		done: make(chan struct{}), conns: map[*leanConn]struct{}{}}
	l.wg.Add(1)
	go l.acceptLoop()
	return l
}

func (l *LeanListener) acceptLoop() {
	defer l.wg.Done()
	var delay time.Duration
	for {
		rwc, err := l.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !l.shuttingDown() {
				// Back off as http.Server.Serve does on temporary errors.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				l.logf("http: Accept error: %v; retrying in %v", err, delay)
				time.Sleep(delay)
				continue
			}
			l.mu.Lock()
			l.acceptEr = err
			l.mu.Unlock()
			l.once.Do(func() { close(l.done) })
			return
		}
		delay = 0
		c := &leanConn{l: l, rwc: rwc, stateAt: time.Now()}
		if !l.track(c) {
			_ = rwc.Close()
			continue
		}
		go c.start()
	}
}

// start sets the connection up and serves it.
func (c *leanConn) start() {
	if ra := c.rwc.RemoteAddr(); ra != nil {
		c.remoteAddr = ra.String()
	}
	base := c.l.cfg.BaseContext
	if base == nil {
		base = context.Background()
	}
	c.ctx = context.WithValue(base, http.LocalAddrContextKey, c.rwc.LocalAddr())
	c.rd = newLeanReader(c.rwc)
	c.bufr = bufio.NewReaderSize(c.rd, leanBufSize)
	c.bufw = bufio.NewWriterSize(leanConnWriter{c}, 4<<10)
	c.bodyBuf = bufio.NewWriterSize(chunkWriter{c}, bufferBeforeChunkingSize)
	c.serve()
}

// track registers a new connection; false once the listener is closed.
func (l *LeanListener) track(c *leanConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.conns[c] = struct{}{}
	l.wg.Add(1)
	return true
}

// forget drops a connection that closed or was handed off.
func (l *LeanListener) forget(c *leanConn) {
	l.mu.Lock()
	c.state.Store(int32(leanGone))
	delete(l.conns, c)
	l.mu.Unlock()
}

// setState moves c to state; false when the listener closed c meanwhile.
// It takes no lock of the listener's (twice a request on every
// connection): closeIdle closes only a connection whose state it swaps
// to leanGone, so either it sees the move (and keeps c) or the move sees
// leanGone. stateAt is not updated: it is read only while c is leanNew,
// which c never becomes again.
func (l *LeanListener) setState(c *leanConn, s leanState) bool {
	for {
		cur := c.state.Load()
		if leanState(cur) == leanGone {
			return false
		}
		if c.state.CompareAndSwap(cur, int32(s)) {
			return true
		}
	}
}

// offer hands a connection to the http.Server (Accept), or closes it
// when the listener closed first; either way the caller is done with it.
func (l *LeanListener) offer(c net.Conn) bool {
	select {
	case l.handoff <- c:
		return true
	case <-l.done:
		_ = c.Close()
		return true
	}
}

// Accept returns the next connection handed over to net/http.
func (l *LeanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.handoff:
		return c, nil
	case <-l.done:
		l.mu.Lock()
		err := l.acceptEr
		l.mu.Unlock()
		if err == nil {
			err = net.ErrClosed
		}
		return nil, err
	}
}

// Addr is the wrapped listener's address.
func (l *LeanListener) Addr() net.Addr { return l.ln.Addr() }

// Close stops accepting and starts the lean connections' drain: idle
// ones close at once, busy ones after their answer (which says
// Connection: close). It does not wait; Shutdown does.
func (l *LeanListener) Close() error {
	l.mu.Lock()
	first := !l.closed
	l.closed = true
	l.closing.Store(true)
	l.mu.Unlock()
	if !first {
		return nil
	}
	err := l.ln.Close()
	l.once.Do(func() { close(l.done) })
	l.closeIdle()
	return err
}

// shuttingDown reports whether Close was called.
func (l *LeanListener) shuttingDown() bool { return l.closing.Load() }

// closeIdle closes the connections waiting for a request, and new ones
// that sent nothing for 5 s (as http.Server.Shutdown treats them); it
// reports whether none is left.
func (l *LeanListener) closeIdle() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		st := leanState(c.state.Load())
		if (st == leanIdle || st == leanNew && time.Since(c.stateAt) > 5*time.Second) && c.state.CompareAndSwap(int32(st), int32(leanGone)) {
			_ = c.rwc.Close()
			delete(l.conns, c)
		}
	}
	return len(l.conns) == 0
}

// Shutdown closes the listener and waits for the lean connections to
// finish their requests, polling as http.Server.Shutdown does; when ctx
// ends first every connection is cut and ctx's error returned. The
// serving goroutines are gone when it returns nil.
func (l *LeanListener) Shutdown(ctx context.Context) error {
	_ = l.Close()
	wait := make(chan struct{})
	go func() { l.wg.Wait(); close(wait) }()
	poll := time.Millisecond
	t := time.NewTimer(poll)
	defer t.Stop()
	for {
		l.closeIdle()
		select {
		case <-wait:
			return nil
		case <-ctx.Done():
			l.CloseConnections()
			return ctx.Err()
		case <-t.C:
			poll = min(2*poll, 500*time.Millisecond)
			t.Reset(poll)
		}
	}
}

// CloseConnections cuts every lean connection at once (a crash, or a
// shutdown past its time).
func (l *LeanListener) CloseConnections() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.state.Store(int32(leanGone))
		_ = c.rwc.Close()
		delete(l.conns, c)
	}
}

func (l *LeanListener) logf(format string, args ...any) {
	if l.cfg.ErrorLog != nil {
		l.cfg.ErrorLog.Printf(format, args...)
		return
	}
	log.Print(fmt.Sprintf(format, args...))
}
