package server

import (
	"errors"
	"net/http"
	"time"
)

// connControl reaches the connection under a response writer as
// http.ResponseController does: it follows Unwrap down to a writer that
// flushes or sets deadlines. It is held by value inside the request's
// ioGuards (http.NewResponseController allocates one of its own on every
// request) and reports a writer that cannot with a shared error wrapping
// http.ErrNotSupported instead of wording a new one each time. It holds
// one request's writer only: nothing changes with several Hearth nodes.
type connControl struct{ rw http.ResponseWriter }

// errConnNotSupported is what connControl answers for a writer that
// cannot: errors.Is(err, http.ErrNotSupported) holds, as for
// http.ResponseController's errors.
var errConnNotSupported = errors.Join(http.ErrNotSupported)

type rwUnwrapper interface{ Unwrap() http.ResponseWriter }

// Flush flushes the response as http.ResponseController.Flush does.
func (c connControl) Flush() error {
	rw := c.rw
	for {
		switch t := rw.(type) {
		case interface{ FlushError() error }:
			return t.FlushError()
		case http.Flusher:
			t.Flush()
			return nil
		case rwUnwrapper:
			rw = t.Unwrap()
		default:
			return errConnNotSupported
		}
	}
}

// SetReadDeadline sets the connection's read deadline as
// http.ResponseController.SetReadDeadline does.
func (c connControl) SetReadDeadline(deadline time.Time) error {
	rw := c.rw
	for {
		switch t := rw.(type) {
		case interface{ SetReadDeadline(time.Time) error }:
			return t.SetReadDeadline(deadline)
		case rwUnwrapper:
			rw = t.Unwrap()
		default:
			return errConnNotSupported
		}
	}
}

// SetWriteDeadline sets the connection's write deadline as
// http.ResponseController.SetWriteDeadline does.
func (c connControl) SetWriteDeadline(deadline time.Time) error {
	rw := c.rw
	for {
		switch t := rw.(type) {
		case interface{ SetWriteDeadline(time.Time) error }:
			return t.SetWriteDeadline(deadline)
		case rwUnwrapper:
			rw = t.Unwrap()
		default:
			return errConnNotSupported
		}
	}
}
