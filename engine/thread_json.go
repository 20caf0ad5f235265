package engine

import (
	"encoding/json"
	"slices"
	"strconv"
)

// Threads and their messages are written by every run that stores its
// conversation, so the common shapes encode by hand, to the bytes
// encoding/json writes: a message whose content is text, without tool
// calls or attachments, and any thread. Other messages go through
// encoding/json.

// AppendJSON appends the thread as json.Marshal writes it.
func (t *Thread) AppendJSON(b []byte) ([]byte, error) {
	start := len(b)
	b = append(b, `{"id":`...)
	b = appendJSONString(b, t.ID)
	b = append(b, `,"owner":`...)
	b = appendJSONString(b, t.Owner)
	b = append(b, `,"key":`...)
	b = appendJSONString(b, t.Key)
	b = append(b, `,"created_at":`...)
	b, err := appendJSONTime(b, t.CreatedAt)
	if err != nil {
		return appendStd(b[:start], (*threadFields)(t))
	}
	b = append(b, `,"metadata":`...)
	b = appendJSONStringMap(b, t.Metadata)
	b = append(b, `,"next_seq":`...)
	b = strconv.AppendInt(b, t.NextSeq, 10)
	if t.Pipe != "" {
		b = append(b, `,"pipe":`...)
		b = appendJSONString(b, t.Pipe)
	}
	if t.PipeID != "" {
		b = append(b, `,"pipe_id":`...)
		b = appendJSONString(b, t.PipeID)
	}
	return append(b, '}'), nil
}

// threadFields has Thread's fields without its methods.
type threadFields Thread

// AppendJSON appends the message as json.Marshal writes it.
func (m *ThreadMessage) AppendJSON(b []byte) ([]byte, error) {
	if m.Content.Parts != nil || len(m.ToolCalls) > 0 || len(m.Attachments) > 0 {
		return appendStd(b, (*threadMessageFields)(m))
	}
	b = append(b, `{"id":`...)
	b = appendJSONString(b, m.ID)
	b = append(b, `,"thread_id":`...)
	b = appendJSONString(b, m.ThreadID)
	b = append(b, `,"created_at":`...)
	b = strconv.AppendInt(b, m.CreatedAt, 10)
	b = append(b, `,"role":`...)
	b = appendJSONString(b, m.Role)
	b = append(b, `,"content":`...)
	if m.Content.Set {
		b = appendJSONString(b, m.Content.Text)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"tool_call_id":`...)
	b = appendJSONStringPtr(b, m.ToolCallID)
	b = append(b, `,"tool_calls":`...)
	b = appendEmptyList(b, m.ToolCalls == nil)
	b = append(b, `,"name":`...)
	b = appendJSONStringPtr(b, m.Name)
	b = append(b, `,"attachments":`...)
	b = appendEmptyList(b, m.Attachments == nil)
	b = append(b, `,"metadata":`...)
	b = appendJSONStringMap(b, m.Metadata)
	return append(b, '}'), nil
}

// threadMessageFields has ThreadMessage's fields without its methods.
type threadMessageFields ThreadMessage

// appendStd appends v as encoding/json writes it.
func appendStd(b []byte, v any) ([]byte, error) {
	std, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, std...), nil
}

func appendJSONStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

// appendEmptyList appends an empty slice: null when it is nil.
func appendEmptyList(b []byte, isNil bool) []byte {
	if isNil {
		return append(b, "null"...)
	}
	return append(b, "[]"...)
}

// appendJSONStringMap appends m as encoding/json writes a map of strings:
// null when nil, keys in sorted order.
func appendJSONStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	switch len(m) {
	case 0:
	case 1:
		for k, v := range m {
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, v)
		}
	default:
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, m[k])
		}
	}
	return append(b, '}')
}
