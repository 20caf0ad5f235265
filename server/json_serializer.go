package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"
)

// plainJSON is echo's JSON serializer without HTML escaping: "<", ">" and
// "&" stay as they are in answers and error messages ("<owner>", not
// "\u003cowner\u003e"). API answers are application/json with nosniff and
// a default-src 'none' policy, so nothing renders them as HTML.
type plainJSON struct{ echo.DefaultJSONSerializer }

// Serialize writes i as JSON, indented when indent is set, with its
// Content-Length (answerLength).
func (plainJSON) Serialize(c echo.Context, i any, indent string) error {
	buf := serializerPool.Get().(*bytes.Buffer)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	err := enc.Encode(i)
	if err == nil {
		answerLength(c, buf.Len())
		_, err = c.Response().Write(buf.Bytes())
	}
	if buf.Cap() <= maxPooledAnswer {
		serializerPool.Put(buf)
	}
	return err
}

// maxPooledAnswer is the largest answer buffer kept for reuse.
const maxPooledAnswer = 64 << 10

// serializerPool holds the buffers plainJSON encodes answers into. It
// lives in one process's memory and holds nothing of a request between
// uses: with several Hearth nodes each has its own pool.
var serializerPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// chunkedAbove is net/http's buffer before a response's headers are sent
// (bufferBeforeChunkingSize in net/http/server.go): an answer that fits is
// given its Content-Length by net/http once the handler returns; a longer
// one, without a Content-Length of its own, goes out in chunked encoding.
const chunkedAbove = 2048

// answerLength sets the Content-Length of a whole answer of n bytes
// about to be written in one piece, so that net/http sends it as it is
// rather than chunked. An answer net/http measures itself (n up to
// chunkedAbove) is left to it: the same header, without a string and a
// slice made for it.
func answerLength(c echo.Context, n int) {
	if n > chunkedAbove && !c.Response().Committed {
		c.Response().Header()[echo.HeaderContentLength] = []string{strconv.Itoa(n)}
	}
}
