package fake

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
)

// fields is the set of keys a JSON object of a request may hold, as the
// real API's schema defines it; APIs built on strict schemas (Gemini's
// protobuf JSON, Mistral's and Cohere's validators, DeepSeek's, OpenAI's
// "Unrecognized request argument", Anthropic's "Extra inputs are not
// permitted") refuse any other key at any depth. A key's value describes its value: nil accepts
// anything (free-form JSON such as a schema or arguments); a non-nil
// fields is checked against an object, or against each object of an
// array. Strings, numbers and booleans pass.
type fields map[string]fields

// unknownField returns the path of the first key f does not define in raw
// ("messages[1].tool_calls[0].extra_content"), or "".
func (f fields) unknownField(at string, raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || f == nil {
		return ""
	}
	switch raw[0] {
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		for i, it := range items {
			if p := f.unknownField(at+"["+strconv.Itoa(i)+"]", it); p != "" {
				return p
			}
		}
	case '{':
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
			sub, ok := f[k]
			path := k
			if at != "" {
				path = at + "." + k
			}
			if !ok {
				return path
			}
			if p := sub.unknownField(path, m[k]); p != "" {
				return p
			}
		}
	}
	return ""
}

// unknownFieldOf is check(body), remembered per body: a body already
// checked is not walked again, so the benchmarks, which send one body many
// times and count the fake's allocations with Hearth's, count the check
// once. At most strictMemo bodies are kept.
func (s *Server) unknownFieldOf(body []byte, check func([]byte) string) string {
	s.mu.Lock()
	p, ok := s.strict[string(body)]
	s.mu.Unlock()
	if ok {
		return p
	}
	p = check(body)
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

// free accepts any value under a key (free-form JSON).
var free fields

// oaiToolCallFields is a tool call of an OpenAI-wire message.
var oaiToolCallFields = fields{"id": free, "type": free, "index": free,
	"function": {"name": free, "arguments": free}}

// oaiToolFields is a tool of an OpenAI-wire request.
var oaiToolFields = fields{"type": free,
	"function": {"name": free, "description": free, "parameters": free, "strict": free}}

// mistralChatFields is Mistral's chat completion request
// (https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post).
var mistralChatFields = fields{"model": free, "temperature": free, "top_p": free, "max_tokens": free, "stream": free,
	"stop": free, "random_seed": free, "n": free, "prediction": free, "parallel_tool_calls": free, "prompt_mode": free,
	"safe_prompt": free, "presence_penalty": free, "frequency_penalty": free, "metadata": free, "reasoning_effort": free,
	"tool_choice":     {"type": free, "function": {"name": free}},
	"response_format": {"type": free, "json_schema": {"name": free, "description": free, "schema": free, "strict": free}},
	"tools":           oaiToolFields,
	"messages": {"role": free, "name": free, "prefix": free, "tool_call_id": free, "tool_calls": oaiToolCallFields,
		"content": {"type": free, "text": free, "image_url": {"url": free, "detail": free}, "thinking": free,
			"document_url": free, "reference_ids": free}},
}

// deepseekChatFields is DeepSeek's chat completion request
// (https://api-docs.deepseek.com/api/create-chat-completion).
var deepseekChatFields = fields{"model": free, "frequency_penalty": free, "max_tokens": free, "presence_penalty": free,
	"stop": free, "stream": free, "temperature": free, "top_p": free, "logprobs": free, "top_logprobs": free,
	"reasoning_effort": free, "tool_choice": {"type": free, "function": {"name": free}},
	"thinking":        {"type": free},
	"response_format": {"type": free},
	"stream_options":  {"include_usage": free},
	"tools":           oaiToolFields,
	"messages": {"role": free, "name": free, "prefix": free, "tool_call_id": free, "tool_calls": oaiToolCallFields,
		"reasoning_content": free, "content": {"type": free, "text": free}},
}

// groqChatFields is Groq's chat completion request
// (https://console.groq.com/docs/api-reference#chat-create); Groq answers
// "property 'x' is unsupported" to anything else.
var groqChatFields = fields{"model": free, "citation_options": free, "compound_custom": free, "disable_tool_validation": free,
	"documents": free, "exclude_domains": free, "include_domains": free, "frequency_penalty": free, "function_call": free,
	"functions": free, "include_reasoning": free, "logit_bias": free, "logprobs": free, "max_completion_tokens": free,
	"max_tokens": free, "metadata": free, "n": free, "parallel_tool_calls": free, "presence_penalty": free,
	"reasoning_effort": free, "reasoning_format": free, "search_settings": free, "seed": free, "service_tier": free,
	"stop": free, "store": free, "stream": free, "temperature": free, "top_logprobs": free, "top_p": free, "user": free,
	"tool_choice":     {"type": free, "function": {"name": free}},
	"response_format": {"type": free, "json_schema": {"name": free, "description": free, "schema": free, "strict": free}},
	"stream_options":  {"include_usage": free},
	"tools":           oaiToolFields,
	"messages": {"role": free, "name": free, "tool_call_id": free, "tool_calls": oaiToolCallFields, "reasoning": free,
		"content": {"type": free, "text": free, "image_url": {"url": free, "detail": free}}},
}

// openAIChatFields is OpenAI's chat completions request
// (https://platform.openai.com/docs/api-reference/chat/create).
var openAIChatFields = fields{"model": free, "parallel_tool_calls": free, "temperature": free, "top_p": free,
	"max_tokens": free, "max_completion_tokens": free, "presence_penalty": free, "frequency_penalty": free, "stop": free,
	"seed": free, "n": free, "user": free, "logprobs": free, "top_logprobs": free, "logit_bias": free, "metadata": free,
	"store": free, "service_tier": free, "modalities": free, "prediction": free, "audio": free, "verbosity": free,
	"prompt_cache_key": free, "safety_identifier": free, "web_search_options": free, "reasoning_effort": free, "stream": free,
	"tool_choice":     {"type": free, "function": {"name": free}},
	"stream_options":  {"include_usage": free, "include_obfuscation": free},
	"response_format": {"type": free, "json_schema": {"name": free, "description": free, "schema": free, "strict": free}},
	"tools":           oaiToolFields,
	"messages": {"role": free, "name": free, "tool_call_id": free, "refusal": free, "audio": free,
		"tool_calls": {"id": free, "type": free, "function": {"name": free, "arguments": free}},
		"content": {"type": free, "text": free, "image_url": {"url": free, "detail": free}, "input_audio": free, "file": free,
			"refusal": free}},
}

// hostChatFields are the OpenAI-wire hosts whose fakes refuse unknown fields.
var hostChatFields = map[string]fields{"openai": openAIChatFields, "mistral": mistralChatFields,
	"deepseek": deepseekChatFields, "groq": groqChatFields}
