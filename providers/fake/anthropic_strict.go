package fake

import (
	"encoding/json"
	"strconv"
)

// antRequestFields is the Messages request body
// (https://platform.claude.com/docs/en/api/messages); its content blocks
// are checked by type (antBlockFields).
var antRequestFields = fields{"model": free, "max_tokens": free, "metadata": free, "service_tier": free,
	"stop_sequences": free, "stream": free, "temperature": free, "top_p": free, "top_k": free, "container": free,
	"mcp_servers": free, "context_management": free, "system": free,
	"messages": {"role": free, "content": free},
	"tools": {"type": free, "name": free, "description": free, "input_schema": free, "cache_control": free,
		"strict": free, "max_uses": free, "allowed_domains": free, "blocked_domains": free, "user_location": free},
	"tool_choice":   {"type": free, "name": free, "disable_parallel_tool_use": free},
	"thinking":      {"type": free, "budget_tokens": free, "display": free},
	"output_config": {"effort": free, "format": {"type": free, "schema": free}},
}

// antSourceBlock is an image or document block.
var antSourceBlock = fields{"type": free, "title": free, "context": free, "citations": free, "cache_control": free,
	"source": {"type": free, "media_type": free, "data": free, "url": free, "file_id": free}}

// antBlockFields are the fields of a content block, by its type; a block
// of a type not listed is not checked.
var antBlockFields = map[string]fields{
	"text":                   {"type": free, "text": free, "citations": free, "cache_control": free},
	"image":                  antSourceBlock,
	"document":               antSourceBlock,
	"tool_use":               {"type": free, "id": free, "name": free, "input": free, "cache_control": free},
	"server_tool_use":        {"type": free, "id": free, "name": free, "input": free, "cache_control": free},
	"tool_result":            {"type": free, "tool_use_id": free, "content": free, "is_error": free, "cache_control": free},
	"web_search_tool_result": {"type": free, "tool_use_id": free, "content": free, "cache_control": free},
	"thinking":               {"type": free, "thinking": free, "signature": free},
	"redacted_thinking":      {"type": free, "data": free},
}

// antUnknownField returns the path of the first field of a Messages body
// the API does not define ("messages[0].content[0].extra_content"), or "".
func antUnknownField(body []byte) string {
	if p := antRequestFields.unknownField("", body); p != "" {
		return p
	}
	var r struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &r)
	if p := antBlocksUnknownField("system", r.System); p != "" {
		return p
	}
	for i, m := range r.Messages {
		if p := antBlocksUnknownField("messages["+strconv.Itoa(i)+"].content", m.Content); p != "" {
			return p
		}
	}
	return ""
}

// antBlocksUnknownField checks each content block of raw by its type; a
// plain string has no blocks.
func antBlocksUnknownField(at string, raw json.RawMessage) string {
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	for i, b := range blocks {
		var v struct {
			Type string `json:"type"`
		}
		json.Unmarshal(b, &v)
		if p := antBlockFields[v.Type].unknownField(at+"["+strconv.Itoa(i)+"]", b); p != "" {
			return p
		}
	}
	return ""
}
