package server

import (
	"errors"
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
