package fake

import (
	"encoding/json"
	"fmt"
	"sort"
)

// The real OpenAI and Anthropic APIs refuse a field they do not know at
// any level of a request body ("Unrecognized request argument supplied",
// "Extra inputs are not permitted"). The shapes below list the fields each
// API documents; unknownField walks a body against one.

// shape is what a JSON value may hold: nil accepts anything; an obj lists
// an object's fields; an arrayOf is an array of one shape; a choice picks
// the shape from the value itself (a string or an object, a content block
// by its type).
type (
	obj     map[string]any
	arrayOf struct{ of any }
	choice  func(raw json.RawMessage) any
)

// unknownField returns the path of the first field raw holds that spec
// does not list ("messages[1].tool_calls[0].extra_content"), or "".
func unknownField(raw json.RawMessage, spec any, path string) string {
	switch s := spec.(type) {
	case nil:
		return ""
	case choice:
		return unknownField(raw, s(raw), path)
	case arrayOf:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		for i, it := range items {
			if p := unknownField(it, s.of, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case obj:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return ""
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, ok := s[k]
			p := k
			if path != "" {
				p = path + "." + k
			}
			if !ok {
				return p
			}
			if q := unknownField(m[k], sub, p); q != "" {
				return q
			}
		}
	}
	return ""
}

// unknownFieldOf is unknownField(body, spec, "") for s, remembered per
// body: a body already checked is not walked again, so the allocation
// tests, which send one body many times and count the fake's allocations
// with Hearth's, count the check once. At most strictMemo bodies are kept.
func (s *Server) unknownFieldOf(body []byte, spec any) string {
	s.mu.Lock()
	p, ok := s.strict[string(body)]
	s.mu.Unlock()
	if ok {
		return p
	}
	p = unknownField(body, spec, "")
	s.mu.Lock()
	if s.strict == nil || len(s.strict) >= strictMemo {
		s.strict = map[string]string{}
	}
	s.strict[string(body)] = p
	s.mu.Unlock()
	return p
}

// strictMemo bounds the bodies unknownFieldOf remembers.
const strictMemo = 256

// typeOf is the "type" field of an object ("" for anything else).
func typeOf(raw json.RawMessage) string {
	var v struct {
		Type string `json:"type"`
	}
	json.Unmarshal(raw, &v)
	return v.Type
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

// openAIChatShape is the chat completions request body
// (https://platform.openai.com/docs/api-reference/chat/create).
var openAIChatShape = obj{
	"model": nil, "messages": arrayOf{openAIMessageShape}, "tools": arrayOf{obj{"type": nil, "function": obj{
		"name": nil, "description": nil, "parameters": nil, "strict": nil}}},
	"tool_choice": choice(func(raw json.RawMessage) any {
		if isObject(raw) {
			return obj{"type": nil, "function": obj{"name": nil}}
		}
		return nil
	}),
	"parallel_tool_calls": nil, "temperature": nil, "top_p": nil, "max_tokens": nil, "max_completion_tokens": nil,
	"presence_penalty": nil, "frequency_penalty": nil, "stop": nil, "seed": nil, "n": nil, "user": nil, "logprobs": nil,
	"top_logprobs": nil, "logit_bias": nil, "metadata": nil, "store": nil, "service_tier": nil, "modalities": nil,
	"prediction": nil, "audio": nil, "verbosity": nil, "prompt_cache_key": nil, "safety_identifier": nil,
	"web_search_options": nil, "reasoning_effort": nil, "stream": nil,
	"stream_options":  obj{"include_usage": nil, "include_obfuscation": nil},
	"response_format": obj{"type": nil, "json_schema": obj{"name": nil, "description": nil, "schema": nil, "strict": nil}},
}

var openAIMessageShape = obj{
	"role": nil, "name": nil, "tool_call_id": nil, "refusal": nil, "audio": nil,
	"content": choice(func(raw json.RawMessage) any {
		return arrayOf{obj{"type": nil, "text": nil, "image_url": obj{"url": nil, "detail": nil},
			"input_audio": nil, "file": nil, "refusal": nil}}
	}),
	"tool_calls": arrayOf{obj{"id": nil, "type": nil, "function": obj{"name": nil, "arguments": nil}}},
}

// anthropicShape is the Messages request body
// (https://platform.claude.com/docs/en/api/messages).
var anthropicShape = obj{
	"model": nil, "max_tokens": nil, "metadata": nil, "service_tier": nil, "stop_sequences": nil, "stream": nil,
	"temperature": nil, "top_p": nil, "top_k": nil, "container": nil, "mcp_servers": nil, "context_management": nil,
	"system":   choice(func(raw json.RawMessage) any { return arrayOf{antBlockShape} }),
	"messages": arrayOf{obj{"role": nil, "content": choice(func(raw json.RawMessage) any { return arrayOf{antBlockShape} })}},
	"tools": arrayOf{obj{"type": nil, "name": nil, "description": nil, "input_schema": nil, "cache_control": nil,
		"strict": nil, "max_uses": nil, "allowed_domains": nil, "blocked_domains": nil, "user_location": nil}},
	"tool_choice":   obj{"type": nil, "name": nil, "disable_parallel_tool_use": nil},
	"thinking":      obj{"type": nil, "budget_tokens": nil, "display": nil},
	"output_config": obj{"effort": nil, "format": obj{"type": nil, "schema": nil}},
}

// antBlockShape is a content block, by its type.
var antBlockShape = choice(func(raw json.RawMessage) any {
	cc := "cache_control"
	switch typeOf(raw) {
	case "text":
		return obj{"type": nil, "text": nil, "citations": nil, cc: nil}
	case "image", "document":
		return obj{"type": nil, "source": obj{"type": nil, "media_type": nil, "data": nil, "url": nil, "file_id": nil},
			"title": nil, "context": nil, "citations": nil, cc: nil}
	case "tool_use", "server_tool_use":
		return obj{"type": nil, "id": nil, "name": nil, "input": nil, cc: nil}
	case "tool_result":
		return obj{"type": nil, "tool_use_id": nil, "content": nil, "is_error": nil, cc: nil}
	case "web_search_tool_result":
		return obj{"type": nil, "tool_use_id": nil, "content": nil, cc: nil}
	case "thinking":
		return obj{"type": nil, "thinking": nil, "signature": nil}
	case "redacted_thinking":
		return obj{"type": nil, "data": nil}
	}
	return nil
})
