package engine

import (
	"strconv"

	"github.com/hearth-dev/hearth/engine/jsonfast"
)

// AppendToolCallJSON serves the hand-written upstream request writers of
// package providers: it reports false for a value it does not handle
// exactly as encoding/json would (see package jsonfast), and the caller
// then encodes the whole document with encoding/json.

// AppendToolCallJSON appends tc as encoding/json writes a ToolCall.
func AppendToolCallJSON(b []byte, tc *ToolCall, html bool) ([]byte, bool) {
	b = append(b, '{')
	if tc.Index != nil {
		b = append(b, `"index":`...)
		b = strconv.AppendInt(b, int64(*tc.Index), 10)
		b = append(b, ',')
	}
	if tc.ID != "" {
		b = append(b, `"id":`...)
		b = jsonfast.AppendString(b, tc.ID, html)
		b = append(b, ',')
	}
	if tc.Type != "" {
		b = append(b, `"type":`...)
		b = jsonfast.AppendString(b, tc.Type, html)
		b = append(b, ',')
	}
	b = append(b, `"function":{`...)
	if tc.Function.Name != "" {
		b = append(b, `"name":`...)
		b = jsonfast.AppendString(b, tc.Function.Name, html)
		b = append(b, ',')
	}
	b = append(b, `"arguments":`...)
	b = jsonfast.AppendString(b, tc.Function.Arguments, html)
	b = append(b, '}')
	if len(tc.ExtraContent) > 0 {
		var ok bool
		b = append(b, `,"extra_content":`...)
		if b, ok = jsonfast.AppendRaw(b, tc.ExtraContent, html); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}
