package providers

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonfast"
)

// Every chat call encodes its request, so the OpenAI-wire request body is
// written by hand, to the bytes json.Marshal writes for the oaiRequest
// (HTML-escaped strings, compacted raw JSON, fields in struct order).
// A request with custom model parameters, or a value the appender does not
// handle exactly as encoding/json would (a number it refuses, invalid raw
// JSON, a tool_choice of another type), goes through marshalWithExtra.

// roomPool keeps the rooms of built requests between calls
// (encodeOpenAIChat). A room goes back cleared, so the pool holds no
// request's data. It lives in this process's memory: with several Hearth
// nodes each node pools its own, and nothing in it is shared or needs to be.
var roomPool = sync.Pool{New: func() any { return new(oaiRequestRoom) }}

// encodeOpenAIChat is the body of a chat completion request for req, built
// in a pooled room: the room is dead once the body is encoded (the body
// holds bytes, never a pointer into it). A room whose encoding failed is
// left to the collector, since an encoding error may point into it.
func encodeOpenAIChat(h *host, req *engine.ChatRequest, stream bool) ([]byte, error) {
	room := roomPool.Get().(*oaiRequestRoom)
	body, err := encodeOpenAIRequest(buildOpenAIRequestIn(room, h, req, stream), hostExtra(h, req.Extra, hostAdditions(h, req)))
	if err != nil {
		return nil, err
	}
	*room = oaiRequestRoom{}
	roomPool.Put(room)
	return body, nil
}

// encodeOpenAIRequest returns the body of r with extra merged in, as
// marshalWithExtra(r, extra) returns it.
func encodeOpenAIRequest(r *oaiRequest, extra map[string]json.RawMessage) ([]byte, error) {
	if len(extra) == 0 {
		if b, ok := appendOpenAIRequest(make([]byte, 0, openAIRequestSize(r)), r); ok {
			return b, nil
		}
	}
	return marshalWithExtra(r, extra)
}

// openAIRequestSize estimates the encoded size of r, so the body is
// usually allocated once.
func openAIRequestSize(r *oaiRequest) int {
	n := 320 + len(r.Model)
	for i := range r.Messages {
		m := &r.Messages[i].Message
		n += 48 + len(m.Content.Text) + len(m.Name) + len(m.ToolCallID)
		for _, p := range m.Content.Parts {
			n += 48 + len(p.Text)
			if p.ImageURL != nil {
				n += len(p.ImageURL.URL)
			}
		}
		for _, tc := range m.ToolCalls {
			n += 64 + len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)*5/4
		}
	}
	for _, t := range r.Tools {
		n += 64 + len(t.Function.Name) + len(t.Function.Description) + len(t.Function.Parameters)
	}
	if rf := r.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		n += 64 + len(rf.JSONSchema.Description) + len(rf.JSONSchema.Schema)
	}
	return n + n/16
}

// appendOpenAIRequest appends r as json.Marshal writes it; false when r
// needs encoding/json.
func appendOpenAIRequest(b []byte, r *oaiRequest) ([]byte, bool) {
	ok := true
	b = append(b, `{"model":`...)
	b = jsonfast.AppendString(b, r.Model, true)
	b = append(b, `,"messages":`...)
	if r.Messages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendOAIMessage(b, &r.Messages[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if len(r.Tools) > 0 {
		b = append(b, `,"tools":[`...)
		for i := range r.Tools {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendTool(b, &r.Tools[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if r.ToolChoice != nil {
		b = append(b, `,"tool_choice":`...)
		switch tc := r.ToolChoice.(type) {
		case string:
			b = jsonfast.AppendString(b, tc, true)
		case *engine.ToolChoice:
			if tc == nil || tc.Function == "" {
				return b, false
			}
			b = append(b, `{"function":{"name":`...)
			b = jsonfast.AppendString(b, tc.Function, true)
			b = append(b, `},"type":"function"}`...)
		default:
			return b, false
		}
	}
	if r.ParallelToolCalls != nil {
		b = append(b, `,"parallel_tool_calls":`...)
		b = jsonfast.AppendBool(b, *r.ParallelToolCalls)
	}
	if b, ok = jsonfast.AppendFloatField(b, `,"temperature":`, r.Temperature); !ok {
		return b, false
	}
	if b, ok = jsonfast.AppendFloatField(b, `,"top_p":`, r.TopP); !ok {
		return b, false
	}
	if r.MaxTokens != nil {
		b = append(b, `,"max_tokens":`...)
		b = strconv.AppendInt(b, int64(*r.MaxTokens), 10)
	}
	if r.MaxCompletionTokens != nil {
		b = append(b, `,"max_completion_tokens":`...)
		b = strconv.AppendInt(b, int64(*r.MaxCompletionTokens), 10)
	}
	if b, ok = jsonfast.AppendFloatField(b, `,"presence_penalty":`, r.PresencePenalty); !ok {
		return b, false
	}
	if b, ok = jsonfast.AppendFloatField(b, `,"frequency_penalty":`, r.FrequencyPenalty); !ok {
		return b, false
	}
	b = jsonfast.AppendStringsField(b, `,"stop":`, r.Stop, true)
	if rf := r.ResponseFormat; rf != nil {
		b = append(b, `,"response_format":`...)
		if b, ok = appendResponseFormat(b, rf); !ok {
			return b, false
		}
	}
	b = jsonfast.AppendStringField(b, `,"reasoning_effort":`, r.ReasoningEffort, true)
	if r.Reasoning != nil {
		b = append(b, `,"reasoning":{"effort":`...)
		b = jsonfast.AppendString(b, r.Reasoning.Effort, true)
		b = append(b, '}')
	}
	if r.Stream {
		b = append(b, `,"stream":true`...)
	}
	if r.StreamOptions != nil {
		b = append(b, `,"stream_options":{"include_usage":`...)
		b = jsonfast.AppendBool(b, r.StreamOptions.IncludeUsage)
		b = append(b, '}')
	}
	return append(b, '}'), true
}

func appendOAIMessage(b []byte, m *oaiMessage) ([]byte, bool) {
	ok := true
	b = append(b, `{"role":`...)
	b = jsonfast.AppendString(b, m.Role, true)
	b = append(b, `,"content":`...)
	b = appendContent(b, &m.Content)
	b = jsonfast.AppendStringField(b, `,"name":`, m.Name, true)
	b = jsonfast.AppendStringField(b, `,"tool_call_id":`, m.ToolCallID, true)
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i := range m.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = engine.AppendToolCallJSON(b, &m.ToolCalls[i], true); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if m.ReasoningContent != nil {
		b = append(b, `,"reasoning_content":`...)
		b = jsonfast.AppendString(b, *m.ReasoningContent, true)
	}
	return append(b, '}'), true
}

// appendContent appends c as Content.MarshalJSON writes it under
// json.Marshal: null, a string, or the array of parts.
func appendContent(b []byte, c *engine.Content) []byte {
	switch {
	case !c.Set:
		return append(b, "null"...)
	case c.Parts == nil:
		return jsonfast.AppendString(b, c.Text, true)
	}
	b = append(b, '[')
	for i := range c.Parts {
		p := &c.Parts[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = jsonfast.AppendString(b, p.Type, true)
		b = jsonfast.AppendStringField(b, `,"text":`, p.Text, true)
		if u := p.ImageURL; u != nil {
			b = append(b, `,"image_url":{"url":`...)
			b = jsonfast.AppendString(b, u.URL, true)
			b = jsonfast.AppendStringField(b, `,"detail":`, u.Detail, true)
			b = append(b, '}')
		}
		if f := p.File; f != nil {
			b = append(b, `,"file":{`...)
			n := len(b)
			b = jsonfast.AppendStringField(b, `,"file_data":`, f.FileData, true)
			b = jsonfast.AppendStringField(b, `,"filename":`, f.Filename, true)
			if len(b) > n {
				b = append(b[:n], b[n+1:]...)
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendTool(b []byte, t *engine.Tool) ([]byte, bool) {
	f := &t.Function
	b = append(b, `{"type":`...)
	b = jsonfast.AppendString(b, t.Type, true)
	b = append(b, `,"function":{"name":`...)
	b = jsonfast.AppendString(b, f.Name, true)
	b = jsonfast.AppendStringField(b, `,"description":`, f.Description, true)
	b, ok := jsonfast.AppendRawField(b, `,"parameters":`, f.Parameters, true)
	if !ok {
		return b, false
	}
	if f.Strict != nil {
		b = append(b, `,"strict":`...)
		b = jsonfast.AppendBool(b, *f.Strict)
	}
	return append(b, "}}"...), true
}

func appendResponseFormat(b []byte, rf *engine.ResponseFormat) ([]byte, bool) {
	b = append(b, `{"type":`...)
	b = jsonfast.AppendString(b, rf.Type, true)
	if s := rf.JSONSchema; s != nil {
		b = append(b, `,"json_schema":{"name":`...)
		b = jsonfast.AppendString(b, s.Name, true)
		b = jsonfast.AppendStringField(b, `,"description":`, s.Description, true)
		var ok bool
		if b, ok = jsonfast.AppendRawField(b, `,"schema":`, s.Schema, true); !ok {
			return b, false
		}
		if s.Strict != nil {
			b = append(b, `,"strict":`...)
			b = jsonfast.AppendBool(b, *s.Strict)
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}
