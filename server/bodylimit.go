package server

import (
	"io"
	"net/http"
)

// bodyLimitReader reads at most a body limit's bytes, as the reader of
// http.MaxBytesReader does: a read past the limit fails with
// *http.MaxBytesError, and every later read with the same error. It holds
// one request's state only: nothing changes with several Hearth nodes.
type bodyLimitReader struct {
	r     io.ReadCloser
	limit int64 // the limit, for the error
	left  int64
	err   error // sticky
}

// limitGuarded puts limit over r's body when it is guardIO's guard, with
// the reader allocated together with the guard (ioGuards), and reports
// whether it did. Other bodies get http.MaxBytesReader.
func limitGuarded(r *http.Request, limit int64) bool {
	g, ok := r.Body.(*slowBodyGuard)
	if !ok || g.spare == nil {
		return false
	}
	l := g.spare
	g.spare = nil
	*l = bodyLimitReader{r: g, limit: max(limit, 0), left: max(limit, 0)}
	r.Body = l
	return true
}

func (l *bodyLimitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// One byte more than what is left tells a body at the limit from one
	// past it.
	if int64(len(p))-1 > l.left {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) <= l.left {
		l.left -= int64(n)
		l.err = err
		return n, err
	}
	n, l.left = int(l.left), 0
	l.err = &http.MaxBytesError{Limit: l.limit}
	return n, l.err
}

func (l *bodyLimitReader) Close() error { return l.r.Close() }
