package server

import (
	"bytes"
	"sync"

	"github.com/labstack/echo/v4"
)

// maxPooledBody is the largest request-body buffer kept for reuse; a
// larger body's buffer is left to the collector.
const maxPooledBody = 256 << 10

// bodyPool holds the buffers JSON request bodies are read into. It is
// per process and keeps nothing of a request after it is decoded: with
// several Hearth nodes on one database each has its own, and nothing in it
// needs sharing.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readPooledBody reads the whole request body into a pooled buffer, with
// readBody's error mapping. The caller decodes from it (encoding/json and
// the API types' UnmarshalJSON methods copy what they keep) and hands it
// back with releaseBody. The body, read to its end, is closed: net/http
// then has nothing to look for in it once the handler answers (it
// otherwise reads an open body's rest through an io.LimitReader of its
// own before the answer's headers go out).
func readPooledBody(c echo.Context) (*bytes.Buffer, error) {
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	r := c.Request()
	if n := r.ContentLength; n > 0 && n <= maxPooledBody {
		buf.Grow(int(n) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(r.Body); err != nil {
		releaseBody(buf)
		return nil, bodyReadError(err)
	}
	r.Body.Close()
	return buf, nil
}

// releaseBody returns buf to the pool unless it grew past maxPooledBody.
func releaseBody(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBody {
		bodyPool.Put(buf)
	}
}
