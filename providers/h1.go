package providers

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
)

// h1Client sends plain-http upstream calls over HTTP/1.1 on the calling
// goroutine: it writes the request and reads the answer itself on a
// pooled keep-alive connection, where net/http's Transport hands every
// request to a connection's write goroutine and takes the answer from its
// read goroutine (channel handoffs, goroutine switches and some thirty
// allocations a call). Connections are dialled with the shared transport's
// DialContext (the egress policy) and obey its limits: response header
// timeout, response header bytes, idle timeout and idle connections per
// host. Anything it does not handle (https, a proxy, an unusual request)
// goes through the transport as before (docs/providers.md#upstream-http-client).
//
// The pool lives in this process's memory: with several Hearth nodes each
// node keeps its own connections to the upstreams, as net/http's pool did;
// nothing in it is shared or needs to be.
type h1Client struct {
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)
	proxy func(*http.Request) (*url.URL, error)
	// headerTimeout bounds the wait for an answer's headers (0: none).
	headerTimeout time.Duration
	// maxHeader bounds the bytes of an answer's headers, 1xx included.
	maxHeader int64
	// idleTimeout closes a connection idle longer (0: no limit).
	idleTimeout time.Duration
	// maxIdlePerHost and maxIdle bound the idle connections kept.
	maxIdlePerHost, maxIdle int

	mu    sync.Mutex
	idle  map[string][]*h1Conn
	nidle int
}

// probeAfter is how long a connection may sit idle and still be used
// where it cannot be probed for a close by the server (h1_probe*.go).
const probeAfter = 100 * time.Millisecond

// armedMargin: a pooled connection whose header deadline, left armed by
// its last call (h1Conn.answer), passes within armedMargin gets it cleared
// before its probe.
const armedMargin = 100 * time.Millisecond

// newH1Client returns the lean client of transport t, or nil when t is
// not one it can stand in for (no dialer of its own, keep-alives off, a
// TLS dialer of its own).
func newH1Client(t *http.Transport) *h1Client {
	if t == nil || t.DialContext == nil || t.DisableKeepAlives || t.Dial != nil {
		return nil
	}
	h := &h1Client{dial: t.DialContext, proxy: t.Proxy, headerTimeout: t.ResponseHeaderTimeout,
		maxHeader: t.MaxResponseHeaderBytes, idleTimeout: t.IdleConnTimeout,
		maxIdlePerHost: t.MaxIdleConnsPerHost, maxIdle: t.MaxIdleConns, idle: map[string][]*h1Conn{}}
	if h.maxHeader <= 0 {
		h.maxHeader = 10 << 20 // net/http's default (Transport.MaxResponseHeaderBytes)
	}
	if h.maxIdlePerHost <= 0 {
		h.maxIdlePerHost = http.DefaultMaxIdleConnsPerHost
	}
	return h
}

// handles reports whether req can go through the lean client: a plain
// http URL with no proxy, a valid method and header, and nothing that
// needs the transport's extra machinery (Expect, Upgrade, Connection,
// a body of unknown length, Request.Close).
func (h *h1Client) handles(req *http.Request) bool {
	u := req.URL
	if h == nil || u == nil || u.Scheme != "http" || u.Host == "" || u.User != nil || req.Close {
		return false
	}
	if req.Host != "" && req.Host != u.Host {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody && (req.ContentLength <= 0 || req.GetBody == nil) {
		return false
	}
	if len(req.TransferEncoding) > 0 || len(req.Trailer) > 0 || !validMethod(req.Method) || !writable(req) {
		return false
	}
	if h.proxy != nil {
		if p, err := h.proxy(req); err != nil || p != nil {
			return false
		}
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return false
		}
		switch k {
		case "Connection", "Expect", "Upgrade", "Transfer-Encoding", "Te", "Trailer", "Host", "Content-Length":
			return false
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return false
			}
		}
	}
	return true
}

// validMethod reports whether m is an HTTP token (empty means GET).
func validMethod(m string) bool {
	for i := 0; i < len(m); i++ {
		if !httpguts.IsTokenRune(rune(m[i])) {
			return false
		}
	}
	return true
}

// roundTrip sends req in the call's context ctx (req's own is not read)
// and returns its answer, as http.Transport.RoundTrip does; ab, when not
// nil, aborts the call's connections when it ends (h1_abort.go). Retry rule (net/http's for HTTP/1.x): a request is sent again, on
// another connection, only when it went out on a reused connection and
// not one byte of it was written (the write failed at once), with its
// body read again from GetBody. A pooled connection is probed before use
// (a read that does not wait) and dropped if the server closed it; where
// it cannot be probed, one idle longer than probeAfter is dropped. Once any byte
// of a request was written it is never sent again here: a POST is not
// idempotent, and the caller's retry policy decides.
func (h *h1Client) roundTrip(ctx context.Context, req *http.Request, ab *callAbort) (*http.Response, error) {
	addr := hostPort(req.URL)
	for {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		pc, reused, err := h.get(ctx, addr)
		if err != nil {
			return nil, err
		}
		resp, written, err := pc.roundTrip(ctx, req, ab)
		if err == nil {
			return resp, nil
		}
		if !reused || written || ctx.Err() != nil {
			return nil, err
		}
		if req.Body != nil && req.Body != http.NoBody {
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			req.Body = body
		}
	}
}

// hostPort is u's host with the port http implies when it names none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// get takes an idle connection to addr, most recently used first, closing
// those past the idle timeout or found closed by the server; or dials one.
func (h *h1Client) get(ctx context.Context, addr string) (*h1Conn, bool, error) {
	for {
		now := time.Now()
		h.mu.Lock()
		list := h.idle[addr]
		if len(list) == 0 {
			h.mu.Unlock()
			break
		}
		pc := list[len(list)-1]
		list[len(list)-1] = nil
		h.idle[addr] = list[:len(list)-1]
		h.nidle--
		h.mu.Unlock()
		idle := now.Sub(pc.idleAt)
		if !pc.readBy.IsZero() && pc.readBy.Sub(now) < armedMargin {
			// A header deadline left armed (h1Conn.answer) has passed,
			// or nearly: the probe would fail on it.
			pc.readBy = time.Time{}
			pc.conn.SetReadDeadline(time.Time{})
		}
		if (h.idleTimeout > 0 && idle > h.idleTimeout) || !pc.alive(idle) {
			pc.conn.Close()
			continue
		}
		return pc, true, nil
	}
	conn, err := h.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return newH1Conn(h, addr, conn), false, nil
}

// put returns pc to the pool, or closes it when the pool is full or it
// holds bytes no request asked for.
func (h *h1Client) put(pc *h1Conn) {
	if pc.br.Buffered() > 0 {
		pc.conn.Close()
		return
	}
	pc.idleAt = time.Now()
	h.mu.Lock()
	list := h.idle[pc.addr]
	// The oldest connections sit at the front: those past the idle
	// timeout are closed here, since the pool has no timer of its own.
	expired := 0
	for expired < len(list) && h.idleTimeout > 0 && pc.idleAt.Sub(list[expired].idleAt) > h.idleTimeout {
		list[expired].conn.Close()
		expired++
	}
	if expired > 0 {
		n := copy(list, list[expired:])
		clear(list[n:])
		list = list[:n]
		h.nidle -= expired
	}
	full := len(list) >= h.maxIdlePerHost || (h.maxIdle > 0 && h.nidle >= h.maxIdle)
	if !full {
		list = append(list, pc)
		h.nidle++
	}
	h.idle[pc.addr] = list
	h.mu.Unlock()
	if full {
		pc.conn.Close()
	}
}

// closeIdle closes every idle connection (Transport.CloseIdleConnections).
func (h *h1Client) closeIdle() {
	if h == nil {
		return
	}
	h.mu.Lock()
	idle := h.idle
	h.idle, h.nidle = map[string][]*h1Conn{}, 0
	h.mu.Unlock()
	for _, list := range idle {
		for _, pc := range list {
			pc.conn.Close()
		}
	}
}
