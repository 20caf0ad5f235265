package server

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// handoffConn is a connection handed to net/http: the bytes the lean
// path read are read again first.
type handoffConn struct {
	net.Conn
	mu      sync.Mutex
	pending []byte
	// err, when set, is returned after pending: the error that ended
	// the lean path's read.
	err error
}

func (h *handoffConn) Read(p []byte) (int, error) {
	h.mu.Lock()
	if len(h.pending) > 0 {
		n := copy(p, h.pending)
		h.pending = h.pending[n:]
		h.mu.Unlock()
		return n, nil
	}
	if err := h.err; err != nil {
		// Sticky, as the connection's own error would be (a passed
		// deadline, the client's end), until net/http sets a deadline
		// of its own after these bytes.
		h.mu.Unlock()
		return 0, err
	}
	h.mu.Unlock()
	return h.Conn.Read(p)
}

// SetReadDeadline ends a sticky error once the bytes read before it are
// read again.
func (h *handoffConn) SetReadDeadline(t time.Time) error {
	h.mu.Lock()
	if len(h.pending) == 0 {
		h.err = nil
	}
	h.mu.Unlock()
	return h.Conn.SetReadDeadline(t)
}

// SetDeadline is SetReadDeadline and SetWriteDeadline.
func (h *handoffConn) SetDeadline(t time.Time) error {
	if err := h.SetReadDeadline(t); err != nil {
		return err
	}
	return h.Conn.SetWriteDeadline(t)
}

// CloseWrite keeps net/http's half-close of refused connections.
func (h *handoffConn) CloseWrite() error {
	if cw, ok := h.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// handoffConnRF is a handoffConn over a connection that can ReadFrom
// (a TCP connection): net/http sends an answer copied with io.Copy
// differently (and with the kernel's copy) when its connection can, so
// the hand-over keeps the method exactly when the connection has it.
type handoffConnRF struct{ *handoffConn }

func (h handoffConnRF) ReadFrom(r io.Reader) (int64, error) {
	return h.Conn.(io.ReaderFrom).ReadFrom(r)
}

// newHandoffConn wraps c with pending in front, and err after it.
func newHandoffConn(c net.Conn, pending []byte, err error) net.Conn {
	h := &handoffConn{Conn: c, pending: pending, err: err}
	if _, ok := c.(io.ReaderFrom); ok {
		return handoffConnRF{h}
	}
	return h
}
