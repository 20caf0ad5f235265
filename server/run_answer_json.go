package server

import (
	"strconv"
	"sync"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonwrite"
	"github.com/labstack/echo/v4"
)

// The non-stream answers of /v1/pipes/run, /v1/agent/run and
// /openai/v1/chat/completions are written by hand, to the bytes plainJSON
// writes for them (no HTML escaping, a trailing newline). An answer with
// sources, web annotations or logprobs, or any other value, goes through
// the JSON serializer.

// maxPooledAnswer is the largest answer buffer kept for reuse.
const maxPooledAnswer = 64 << 10

// answerPool holds the buffers answers are appended into. It lives in one
// process's memory and holds nothing of a request between uses: with
// several Hearth nodes each has its own pool, and nothing needs sharing.
var answerPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// writeAnswer writes v when appendAnswer handles it, as plainJSON would
// write it; false, with nothing written, when v needs the serializer.
func writeAnswer(c echo.Context, v any) (bool, error) {
	switch v.(type) {
	case *runResponse, *agentResponse, *engine.ChatResponse:
	default:
		return false, nil
	}
	bp := answerPool.Get().(*[]byte)
	b, ok := appendAnswer((*bp)[:0], v)
	if !ok {
		*bp = b[:0]
		answerPool.Put(bp)
		return false, nil
	}
	b = append(b, '\n')
	answerLength(c, len(b))
	_, err := c.Response().Write(b)
	if cap(b) <= maxPooledAnswer {
		*bp = b[:0]
		answerPool.Put(bp)
	}
	return true, err
}

// appendAnswer appends the hot answers v may be, without the trailing
// newline; false for anything else.
func appendAnswer(b []byte, v any) ([]byte, bool) {
	switch a := v.(type) {
	case *runResponse:
		if a == nil {
			return append(b, "null"...), true
		}
		return appendRunResponse(b, a)
	case *agentResponse:
		if a == nil {
			return append(b, "null"...), true
		}
		b = append(b, `{"output":`...)
		if a.Output == nil {
			b = append(b, "null"...)
		} else {
			b = jsonwrite.String(b, *a.Output, false)
		}
		if a.ChatResponse != nil {
			var ok bool
			b = append(b, ',')
			if b, ok = engine.AppendChatResponseFieldsJSON(b, a.ChatResponse, false); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	case *engine.ChatResponse:
		if a == nil {
			return append(b, "null"...), true
		}
		b = append(b, '{')
		b, ok := engine.AppendChatResponseFieldsJSON(b, a, false)
		return append(b, '}'), ok
	}
	return b, false
}

func appendRunResponse(b []byte, r *runResponse) ([]byte, bool) {
	raw := &r.Raw
	if r.Sources != nil || raw.Sources != nil {
		return b, false
	}
	b = append(b, `{"success":`...)
	b = jsonwrite.Bool(b, r.Success)
	b = append(b, `,"completion":`...)
	b = jsonwrite.String(b, r.Completion, false)
	b = append(b, `,"raw":{"id":`...)
	b = jsonwrite.String(b, raw.ID, false)
	b = append(b, `,"object":`...)
	b = jsonwrite.String(b, raw.Object, false)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, raw.Created, 10)
	b = append(b, `,"model":`...)
	b = jsonwrite.String(b, raw.Model, false)
	b = append(b, `,"provider":`...)
	b = jsonwrite.String(b, raw.Provider, false)
	b = append(b, `,"choices":`...)
	b, ok := engine.AppendChoicesJSON(b, raw.Choices, false)
	if !ok {
		return b, false
	}
	b = append(b, `,"usage":`...)
	b = engine.AppendUsageJSON(b, &raw.Usage)
	b = append(b, `,"system_fingerprint":`...)
	if raw.SystemFingerprint == nil {
		b = append(b, "null"...)
	} else {
		b = jsonwrite.String(b, *raw.SystemFingerprint, false)
	}
	return append(b, "}}"...), true
}

// appendChunkEvent appends a stream chunk as the event writer's encoder
// writes it (HTML-escaped, ending in a newline); false for any other
// value, or a chunk with logprobs or annotations.
func appendChunkEvent(b []byte, v any) ([]byte, bool) {
	c, ok := v.(*engine.ChatChunk)
	if !ok || c == nil {
		return b, false
	}
	if b, ok = engine.AppendChatChunkJSON(b, c, true); !ok {
		return b, false
	}
	return append(b, '\n'), true
}
