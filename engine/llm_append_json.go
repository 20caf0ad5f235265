package engine

import (
	"strconv"

	"github.com/hearth-dev/hearth/engine/jsonwrite"
)

// The appenders below write the chat types as encoding/json writes them,
// with HTML escaping (json.Marshal, the upstream request bodies) or
// without (the server's answers), and report false for a value they do
// not handle exactly as encoding/json would (see package jsonwrite): the
// caller then encodes the whole document with encoding/json.

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
		b = jsonwrite.String(b, tc.ID, html)
		b = append(b, ',')
	}
	if tc.Type != "" {
		b = append(b, `"type":`...)
		b = jsonwrite.String(b, tc.Type, html)
		b = append(b, ',')
	}
	b = append(b, `"function":{`...)
	if tc.Function.Name != "" {
		b = append(b, `"name":`...)
		b = jsonwrite.String(b, tc.Function.Name, html)
		b = append(b, ',')
	}
	b = append(b, `"arguments":`...)
	b = jsonwrite.String(b, tc.Function.Arguments, html)
	b = append(b, '}')
	if len(tc.ExtraContent) > 0 {
		var ok bool
		b = append(b, `,"extra_content":`...)
		if b, ok = jsonwrite.Raw(b, tc.ExtraContent, html); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// AppendChoicesJSON appends choices as encoding/json writes them (null
// when nil). It handles choices without logprobs whose annotations are
// nil or empty.
func AppendChoicesJSON(b []byte, choices []Choice, html bool) ([]byte, bool) {
	if choices == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i := range choices {
		ch := &choices[i]
		m := &ch.Message
		if ch.Logprobs != nil || len(m.Annotations) > 0 {
			return b, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(ch.Index), 10)
		b = append(b, `,"message":{"role":`...)
		b = jsonwrite.String(b, m.Role, html)
		b = append(b, `,"content":`...)
		b = appendStringPtr(b, m.Content, html)
		b = append(b, `,"refusal":`...)
		b = appendStringPtr(b, m.Refusal, html)
		if len(m.ToolCalls) > 0 {
			var ok bool
			b = append(b, `,"tool_calls":[`...)
			for j := range m.ToolCalls {
				if j > 0 {
					b = append(b, ',')
				}
				if b, ok = AppendToolCallJSON(b, &m.ToolCalls[j], html); !ok {
					return b, false
				}
			}
			b = append(b, ']')
		}
		b = append(b, `,"annotations":`...)
		b = appendEmptyList(b, m.Annotations == nil)
		b = append(b, `},"logprobs":null,"finish_reason":`...)
		b = jsonwrite.String(b, ch.FinishReason, html)
		b = append(b, '}')
	}
	return append(b, ']'), true
}

// AppendUsageJSON appends u as encoding/json writes a Usage.
func AppendUsageJSON(b []byte, u *Usage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	if d := u.PromptTokensDetails; d != nil {
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(d.CachedTokens), 10)
		b = append(b, `,"audio_tokens":`...)
		b = strconv.AppendInt(b, int64(d.AudioTokens), 10)
		b = append(b, '}')
	}
	if d := u.CompletionTokensDetails; d != nil {
		b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(d.ReasoningTokens), 10)
		b = append(b, `,"audio_tokens":`...)
		b = strconv.AppendInt(b, int64(d.AudioTokens), 10)
		b = append(b, `,"accepted_prediction_tokens":`...)
		b = strconv.AppendInt(b, int64(d.AcceptedPredictionTokens), 10)
		b = append(b, `,"rejected_prediction_tokens":`...)
		b = strconv.AppendInt(b, int64(d.RejectedPredictionTokens), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// AppendChatResponseFieldsJSON appends the fields of r, without the
// enclosing braces, as encoding/json writes them (also where r is
// embedded in another answer).
func AppendChatResponseFieldsJSON(b []byte, r *ChatResponse, html bool) ([]byte, bool) {
	b = append(b, `"id":`...)
	b = jsonwrite.String(b, r.ID, html)
	b = append(b, `,"object":`...)
	b = jsonwrite.String(b, r.Object, html)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, r.Created, 10)
	b = append(b, `,"model":`...)
	b = jsonwrite.String(b, r.Model, html)
	b = append(b, `,"choices":`...)
	b, ok := AppendChoicesJSON(b, r.Choices, html)
	if !ok {
		return b, false
	}
	b = append(b, `,"usage":`...)
	b = AppendUsageJSON(b, &r.Usage)
	b = append(b, `,"system_fingerprint":`...)
	return appendStringPtr(b, r.SystemFingerprint, html), true
}

func appendStringPtr(b []byte, s *string, html bool) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return jsonwrite.String(b, *s, html)
}

// AppendChatChunkJSON appends c as encoding/json writes a ChatChunk. It
// handles chunks whose choices have no logprobs and no annotations.
func AppendChatChunkJSON(b []byte, c *ChatChunk, html bool) ([]byte, bool) {
	b = append(b, `{"id":`...)
	b = jsonwrite.String(b, c.ID, html)
	b = append(b, `,"object":`...)
	b = jsonwrite.String(b, c.Object, html)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, c.Created, 10)
	b = append(b, `,"model":`...)
	b = jsonwrite.String(b, c.Model, html)
	b = append(b, `,"system_fingerprint":`...)
	b = appendStringPtr(b, c.SystemFingerprint, html)
	b = append(b, `,"choices":`...)
	if c.Choices == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range c.Choices {
			ch := &c.Choices[i]
			if ch.Logprobs != nil || len(ch.Delta.Annotations) > 0 {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			b = append(b, `{"index":`...)
			b = strconv.AppendInt(b, int64(ch.Index), 10)
			b = append(b, `,"delta":`...)
			if b, ok = appendDelta(b, &ch.Delta, html); !ok {
				return b, false
			}
			b = append(b, `,"logprobs":null,"finish_reason":`...)
			b = appendStringPtr(b, ch.FinishReason, html)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if c.Usage != nil {
		b = append(b, `,"usage":`...)
		b = AppendUsageJSON(b, c.Usage)
	}
	return append(b, '}'), true
}

func appendDelta(b []byte, d *Delta, html bool) ([]byte, bool) {
	b = append(b, '{')
	sep := false
	field := func(key string) {
		if sep {
			b = append(b, ',')
		}
		b = append(b, key...)
		sep = true
	}
	if d.Role != "" {
		field(`"role":`)
		b = jsonwrite.String(b, d.Role, html)
	}
	if d.Content != nil {
		field(`"content":`)
		b = jsonwrite.String(b, *d.Content, html)
	}
	if d.Refusal != nil {
		field(`"refusal":`)
		b = jsonwrite.String(b, *d.Refusal, html)
	}
	if len(d.ToolCalls) > 0 {
		var ok bool
		field(`"tool_calls":[`)
		for j := range d.ToolCalls {
			if j > 0 {
				b = append(b, ',')
			}
			if b, ok = AppendToolCallJSON(b, &d.ToolCalls[j], html); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

// appendEmptyList appends an empty slice: null when it is nil.
func appendEmptyList(b []byte, isNil bool) []byte {
	if isNil {
		return append(b, "null"...)
	}
	return append(b, "[]"...)
}
