package server

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// eventWriter streams JSON events to the client, as server-sent events
// (pipe and agent runs) or as newline-delimited JSON (beta runs). Nothing
// is written until the first event, so an error that happens before it can
// still be answered as a normal JSON error.
//
// SSE events are unnamed `data: <json>` lines terminated by "\r\n\r\n".
// The langbase SDK's SSE parser holds back an event that ends a network
// read exactly at "\n\n" until more bytes arrive (an off-by-one in its
// boundary search), which would delay every token by one event; the CRLF
// terminator is a blank line to every SSE parser and avoids that lag.
type eventWriter struct {
	c       echo.Context
	ndjson  bool
	started bool
	// ContentType overrides the default type of an NDJSON stream.
	contentType string
	// trailer, when set, makes one more event that Done writes before the
	// end, from the last chat chunk relayed (nil when none was).
	trailer func(last *engine.ChatChunk) any
	last    *engine.ChatChunk
	// buf is the frame of the event being written, reused for the next
	// (the response writer copies it before Write returns).
	buf []byte
	// unflushed is set while written events wait for a Flush.
	unflushed bool
	// fb and enc encode each event straight into the reused frame
	// (json.Marshal would allocate each event's bytes).
	fb  bytes.Buffer
	enc *json.Encoder
	// fbArray is fb's first array, allocated with the writer.
	fbArray [1024]byte
}

const sseTerminator = "\r\n\r\n"

func newSSEWriter(c echo.Context) *eventWriter { return &eventWriter{c: c} }

func newNDJSONWriter(c echo.Context, contentType string) *eventWriter {
	return &eventWriter{c: c, ndjson: true, contentType: contentType}
}

// Started reports whether the response has begun.
func (w *eventWriter) Started() bool { return w.started }

// Shared read-only header values of every stream (len == cap, so an Add
// copies instead of writing into them).
var (
	sseContentType = []string{"text/event-stream; charset=utf-8"}
	noCache        = []string{"no-cache"}
	noBuffering    = []string{"no"}
)

func (w *eventWriter) start() {
	if w.started {
		return
	}
	w.started = true
	h := w.c.Response().Header()
	if w.ndjson {
		h.Set(echo.HeaderContentType, w.contentType)
	} else {
		h[echo.HeaderContentType] = sseContentType
	}
	h["Cache-Control"] = noCache
	h["X-Accel-Buffering"] = noBuffering
	w.c.Response().WriteHeader(http.StatusOK)
}

func (w *eventWriter) write(b []byte) error {
	if err := w.put(b); err != nil {
		return err
	}
	return w.Flush()
}

// put writes b to the response without flushing it.
func (w *eventWriter) put(b []byte) error {
	w.start()
	w.unflushed = true
	_, err := w.c.Response().Write(b)
	return err
}

// Flush sends what was written since the last flush, if anything was.
func (w *eventWriter) Flush() error {
	if !w.unflushed {
		return nil
	}
	w.unflushed = false
	return connControl{w.c.Response().Writer}.Flush()
}

// Event writes one JSON event and flushes it.
func (w *eventWriter) Event(v any) error {
	b, err := w.encode(v)
	if err != nil {
		return err
	}
	return w.write(b)
}

// Append writes one JSON event without flushing it: the caller flushes
// before it waits for anything (see relay).
func (w *eventWriter) Append(v any) error {
	b, err := w.encode(v)
	if err != nil {
		return err
	}
	return w.put(b)
}

// encode frames v in the reused buffer; the bytes are valid until the
// next call.
func (w *eventWriter) encode(v any) ([]byte, error) {
	if w.fb.Cap() == 0 {
		w.fb = *bytes.NewBuffer(w.fbArray[:0])
	}
	w.fb.Reset()
	if !w.ndjson {
		w.fb.WriteString("data: ")
	}
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.fb) // HTML-escaped, as json.Marshal
	}
	if err := w.enc.Encode(v); err != nil {
		return nil, err
	}
	if !w.ndjson { // Encode ends the value with '\n'; SSE ends it with CRLF CRLF
		w.fb.Truncate(w.fb.Len() - 1)
		w.fb.WriteString(sseTerminator)
	}
	return w.fb.Bytes(), nil
}

func (w *eventWriter) frame(b []byte) []byte {
	if w.ndjson {
		return append(b, '\n')
	}
	out := append(w.buf[:0], "data: "...)
	out = append(out, b...)
	out = append(out, sseTerminator...)
	w.buf = out
	return out
}

// Done ends an SSE stream with [DONE]; NDJSON streams just end. The
// trailer event, when set, goes first.
func (w *eventWriter) Done() error {
	if w.trailer != nil {
		if err := w.Event(w.trailer(w.last)); err != nil {
			return err
		}
	}
	if w.ndjson {
		w.start()
		return nil
	}
	return w.write(sseDone)
}

// sseDone is the [DONE] event, shared read-only (io.Writer does not change
// what it is given).
var sseDone = []byte("data: [DONE]" + sseTerminator)

// Error reports an error after the stream started: {"error": "<message>"}
// as one more event (the SDK throws it as an Error with that message).
func (w *eventWriter) Error(msg string) error {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return w.write(w.frame(b))
}
