package fake

import (
	"bytes"
	"encoding/json"
	"sort"
)

// fields is the set of keys a JSON object of a request may hold, as the
// real API's schema defines it; APIs built on strict schemas (Gemini's
// protobuf JSON, Mistral's and Cohere's validators, DeepSeek's) refuse any
// other key at any depth. A key's value describes its value: nil accepts
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
			if p := f.unknownField(at+"["+itoa(i)+"]", it); p != "" {
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

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// any_ accepts any value under a key.
var any_ fields

// oaiFunctionCall is a tool call of an OpenAI-wire message.
var oaiToolCallFields = fields{"id": any_, "type": any_, "index": any_,
	"function": {"name": any_, "arguments": any_}}

// oaiToolFields is a tool of an OpenAI-wire request.
var oaiToolFields = fields{"type": any_,
	"function": {"name": any_, "description": any_, "parameters": any_, "strict": any_}}

// mistralChatFields is Mistral's chat completion request
// (https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post).
var mistralChatFields = fields{"model": any_, "temperature": any_, "top_p": any_, "max_tokens": any_, "stream": any_,
	"stop": any_, "random_seed": any_, "n": any_, "prediction": any_, "parallel_tool_calls": any_, "prompt_mode": any_,
	"safe_prompt": any_, "presence_penalty": any_, "frequency_penalty": any_, "metadata": any_, "reasoning_effort": any_,
	"tool_choice":     {"type": any_, "function": {"name": any_}},
	"response_format": {"type": any_, "json_schema": {"name": any_, "description": any_, "schema": any_, "strict": any_}},
	"tools":           oaiToolFields,
	"messages": {"role": any_, "name": any_, "prefix": any_, "tool_call_id": any_, "tool_calls": oaiToolCallFields,
		"content": {"type": any_, "text": any_, "image_url": {"url": any_, "detail": any_}, "thinking": any_,
			"document_url": any_, "reference_ids": any_}},
}

// deepseekChatFields is DeepSeek's chat completion request
// (https://api-docs.deepseek.com/api/create-chat-completion).
var deepseekChatFields = fields{"model": any_, "frequency_penalty": any_, "max_tokens": any_, "presence_penalty": any_,
	"stop": any_, "stream": any_, "temperature": any_, "top_p": any_, "logprobs": any_, "top_logprobs": any_,
	"reasoning_effort": any_, "tool_choice": {"type": any_, "function": {"name": any_}},
	"thinking":        {"type": any_},
	"response_format": {"type": any_},
	"stream_options":  {"include_usage": any_},
	"tools":           oaiToolFields,
	"messages": {"role": any_, "name": any_, "prefix": any_, "tool_call_id": any_, "tool_calls": oaiToolCallFields,
		"reasoning_content": any_, "content": {"type": any_, "text": any_}},
}

// groqChatFields is Groq's chat completion request
// (https://console.groq.com/docs/api-reference#chat-create); Groq answers
// "property 'x' is unsupported" to anything else.
var groqChatFields = fields{"model": any_, "citation_options": any_, "compound_custom": any_, "disable_tool_validation": any_,
	"documents": any_, "exclude_domains": any_, "include_domains": any_, "frequency_penalty": any_, "function_call": any_,
	"functions": any_, "include_reasoning": any_, "logit_bias": any_, "logprobs": any_, "max_completion_tokens": any_,
	"max_tokens": any_, "metadata": any_, "n": any_, "parallel_tool_calls": any_, "presence_penalty": any_,
	"reasoning_effort": any_, "reasoning_format": any_, "search_settings": any_, "seed": any_, "service_tier": any_,
	"stop": any_, "store": any_, "stream": any_, "temperature": any_, "top_logprobs": any_, "top_p": any_, "user": any_,
	"tool_choice":     {"type": any_, "function": {"name": any_}},
	"response_format": {"type": any_, "json_schema": {"name": any_, "description": any_, "schema": any_, "strict": any_}},
	"stream_options":  {"include_usage": any_},
	"tools":           oaiToolFields,
	"messages": {"role": any_, "name": any_, "tool_call_id": any_, "tool_calls": oaiToolCallFields, "reasoning": any_,
		"content": {"type": any_, "text": any_, "image_url": {"url": any_, "detail": any_}}},
}

// hostChatFields are the hosts whose fakes refuse unknown fields.
var hostChatFields = map[string]fields{"mistral": mistralChatFields, "deepseek": deepseekChatFields, "groq": groqChatFields}
