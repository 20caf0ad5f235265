package server

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/hearth-dev/hearth/engine"
)

// messagesRequest is the body of POST /anthropic/v1/messages
// (https://docs.claude.com/en/api/messages). Fields whose JSON shape
// varies stay raw and are checked by chat, so every error names the
// field. Unknown keys are ignored, as Anthropic ignores none but Hearth
// has no use for them (service_tier, container, ...).
type messagesRequest struct {
	Model         string            `json:"model"`
	MaxTokens     *float64          `json:"max_tokens"`
	Messages      json.RawMessage   `json:"messages"`
	System        json.RawMessage   `json:"system"`
	Tools         []json.RawMessage `json:"tools"`
	ToolChoice    json.RawMessage   `json:"tool_choice"`
	StopSequences []string          `json:"stop_sequences"`
	Temperature   *float64          `json:"temperature"`
	TopP          *float64          `json:"top_p"`
	TopK          *float64          `json:"top_k"`
	Thinking      json.RawMessage   `json:"thinking"`
	Metadata      json.RawMessage   `json:"metadata"`
	Stream        bool              `json:"stream"`
	// Cache is Hearth's response cache mode (on, off, refresh), sent in
	// the SDK's extra body; the LB-Cache header wins over it.
	Cache string `json:"cache"`
}

// msgBlock is one content block of a Messages request, of any type.
type msgBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Source    *msgSource      `json:"source"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Title     string          `json:"title"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	// CacheControl is a prompt-cache breakpoint, sent on to Anthropic
	// models only.
	CacheControl json.RawMessage `json:"cache_control"`
}

// msgSource is the source of an image or document block.
type msgSource struct {
	Type      string          `json:"type"`
	MediaType string          `json:"media_type"`
	Data      string          `json:"data"`
	URL       string          `json:"url"`
	Content   json.RawMessage `json:"content"`
}

// antOnly are the request fields only the anthropic provider understands;
// chat puts them in ChatRequest.Extra when the call goes there.
type antOnly struct {
	thinking, topK, metadata json.RawMessage
}

// imageTypes are the media types of Anthropic's base64 image source.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// chat checks the request and builds the canonical chat request; the
// fields only Anthropic understands come back apart (see antOnly).
func (r *messagesRequest) chat() (*engine.ChatRequest, antOnly, error) {
	var only antOnly
	if r.MaxTokens == nil {
		return nil, only, engine.FieldError("max_tokens", "is required: the most tokens the answer may have, an integer of at least 1")
	}
	if *r.MaxTokens < 1 || *r.MaxTokens != math.Trunc(*r.MaxTokens) || *r.MaxTokens > math.MaxInt32 {
		return nil, only, engine.FieldError("max_tokens", "must be an integer of at least 1, got %g", *r.MaxTokens)
	}
	max := int(*r.MaxTokens)
	chat := &engine.ChatRequest{MaxTokens: &max, Stop: r.StopSequences}
	system, err := systemContent("system", r.System)
	if err != nil {
		return nil, only, err
	}
	if system.Set {
		chat.Messages = append(chat.Messages, engine.Message{Role: "system", Content: system})
	}
	msgs, err := canonicalMessages(r.Messages)
	if err != nil {
		return nil, only, err
	}
	chat.Messages = append(chat.Messages, msgs...)
	if chat.Tools, err = messagesTools(r.Tools); err != nil {
		return nil, only, err
	}
	if err := messagesToolChoice(r.ToolChoice, chat); err != nil {
		return nil, only, err
	}
	for _, n := range []struct {
		field string
		v     *float64
		dst   **float64
	}{{"temperature", r.Temperature, &chat.Temperature}, {"top_p", r.TopP, &chat.TopP}} {
		if n.v != nil {
			if *n.v < 0 || *n.v > 1 {
				return nil, only, engine.FieldError(n.field, "must be from 0 to 1, got %g", *n.v)
			}
			v := *n.v
			*n.dst = &v
		}
	}
	if r.TopK != nil {
		if *r.TopK < 0 || *r.TopK != math.Trunc(*r.TopK) {
			return nil, only, engine.FieldError("top_k", "must be a non-negative integer, got %g", *r.TopK)
		}
		only.topK = json.RawMessage(fmt.Sprint(int64(*r.TopK)))
	}
	if k := engine.JSONKind(r.Thinking); k != "" && k != "null" {
		var th struct {
			Type string `json:"type"`
		}
		if k != "object" || json.Unmarshal(r.Thinking, &th) != nil || (th.Type != "enabled" && th.Type != "disabled" && th.Type != "adaptive") {
			return nil, only, engine.FieldError("thinking", "must be an object whose type is enabled, disabled or adaptive")
		}
		only.thinking = r.Thinking
	}
	if k := engine.JSONKind(r.Metadata); k != "" && k != "null" {
		if k != "object" {
			return nil, only, engine.FieldError("metadata", "must be an object, got %s", k)
		}
		only.metadata = r.Metadata
	}
	return chat, only, nil
}

// systemContent reads system: a string or an array of text blocks, which
// stay text parts when one carries a cache_control breakpoint and are
// joined by blank lines otherwise. An empty system is no content.
func systemContent(field string, raw json.RawMessage) (engine.Content, error) {
	switch engine.JSONKind(raw) {
	case "", "null":
		return engine.Content{}, nil
	case "string":
		var s string
		json.Unmarshal(raw, &s)
		if s == "" {
			return engine.Content{}, nil
		}
		return engine.TextContent(s), nil
	case "array":
		var blocks []msgBlock
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return engine.Content{}, engine.FieldError(field, "must be a string or an array of text blocks")
		}
		var parts []engine.ContentPart
		for i, b := range blocks {
			at := fmt.Sprintf("%s[%d]", field, i)
			if b.Type != "text" {
				return engine.Content{}, engine.FieldError(at+".type", "must be text, got %q", b.Type)
			}
			cc, err := cacheControl(at, b.CacheControl)
			if err != nil {
				return engine.Content{}, err
			}
			parts = append(parts, engine.ContentPart{Type: "text", Text: b.Text, CacheControl: cc})
		}
		if c := partsContent(parts); c.Parts != nil || c.Text != "" {
			return c, nil
		}
		return engine.Content{}, nil
	}
	return engine.Content{}, engine.FieldError(field, "must be a string or an array of text blocks, got %s", engine.JSONKind(raw))
}

// cacheControl checks a block's cache_control: absent, or
// {"type":"ephemeral"} with an optional ttl of 5m or 1h.
func cacheControl(at string, raw json.RawMessage) (json.RawMessage, error) {
	if k := engine.JSONKind(raw); k == "" || k == "null" {
		return nil, nil
	}
	var cc struct {
		Type string  `json:"type"`
		TTL  *string `json:"ttl"`
	}
	if engine.JSONKind(raw) != "object" || json.Unmarshal(raw, &cc) != nil || cc.Type != "ephemeral" {
		return nil, engine.FieldError(at+".cache_control", `must be {"type":"ephemeral"}, optionally with a ttl of 5m or 1h`)
	}
	if cc.TTL != nil && *cc.TTL != "5m" && *cc.TTL != "1h" {
		return nil, engine.FieldError(at+".cache_control.ttl", "must be 5m or 1h, got %q", *cc.TTL)
	}
	return raw, nil
}

// canonicalMessages reads messages: user and assistant turns whose content
// is a string or an array of blocks, and system messages of text blocks
// (Claude Code sends them mid-conversation; the anthropic adapter joins
// them to the system prompt). A user turn's tool_result blocks
// become tool messages (first, as their calls precede them); an assistant
// turn's thinking blocks ride on its first tool call's extra_content, the
// way the anthropic adapter sends them back.
func canonicalMessages(raw json.RawMessage) ([]engine.Message, error) {
	if engine.JSONKind(raw) != "array" {
		return nil, engine.FieldError("messages", "is required: an array of messages, got %s", engine.JSONKind(raw))
	}
	var in []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, engine.FieldError("messages", "must be an array of {role, content} objects")
	}
	if len(in) == 0 {
		return nil, engine.FieldError("messages", "must hold at least one message")
	}
	if len(in) > engine.MaxRunMessages {
		return nil, engine.FieldError("messages", "at most %d messages", engine.MaxRunMessages)
	}
	var out []engine.Message
	for i, m := range in {
		at := fmt.Sprintf("messages[%d]", i)
		blocks, err := contentBlocks(at+".content", m.Content)
		if err != nil {
			return nil, err
		}
		var msgs []engine.Message
		switch m.Role {
		case "user":
			msgs, err = userMessages(at, blocks)
		case "assistant":
			var a engine.Message
			a, err = assistantMessage(at, blocks)
			msgs = []engine.Message{a}
		case "system":
			var sys engine.Content
			if sys, err = systemContent(at+".content", m.Content); err == nil && sys.Set {
				msgs = []engine.Message{{Role: "system", Content: sys}}
			}
		default:
			return nil, engine.FieldError(at+".role", "must be user, assistant or system, got %q", m.Role)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, msgs...)
	}
	return out, nil
}

// messagesTools reads tools: custom tools with a name and an input_schema.
func messagesTools(raws []json.RawMessage) ([]engine.Tool, error) {
	var out []engine.Tool
	for i, raw := range raws {
		at := fmt.Sprintf("tools[%d]", i)
		var t struct {
			Type         string          `json:"type"`
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"input_schema"`
			CacheControl json.RawMessage `json:"cache_control"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, engine.FieldError(at, "must be a tool object {name, description, input_schema}")
		}
		if t.Type != "" && t.Type != "custom" {
			return nil, engine.FieldError(at+".type", "%q is a server tool, which Hearth does not run: offer custom tools (name, description, input_schema)", t.Type)
		}
		if t.Name == "" {
			return nil, engine.FieldError(at+".name", "is required")
		}
		if engine.JSONKind(t.InputSchema) != "object" {
			return nil, engine.FieldError(at+".input_schema", "is required: a JSON schema object")
		}
		cc, err := cacheControl(at, t.CacheControl)
		if err != nil {
			return nil, err
		}
		out = append(out, engine.Tool{Type: "function", Function: engine.ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}, CacheControl: cc})
	}
	return out, nil
}

// messagesToolChoice reads tool_choice {type: auto|any|tool|none, name,
// disable_parallel_tool_use}.
func messagesToolChoice(raw json.RawMessage, chat *engine.ChatRequest) error {
	if k := engine.JSONKind(raw); k == "" || k == "null" {
		return nil
	}
	var tc struct {
		Type                   string `json:"type"`
		Name                   string `json:"name"`
		DisableParallelToolUse *bool  `json:"disable_parallel_tool_use"`
	}
	if engine.JSONKind(raw) != "object" || json.Unmarshal(raw, &tc) != nil {
		return engine.FieldError("tool_choice", "must be an object {type: auto, any, tool or none}")
	}
	switch tc.Type {
	case "auto":
		chat.ToolChoice = &engine.ToolChoice{Mode: "auto"}
	case "any":
		chat.ToolChoice = &engine.ToolChoice{Mode: "required"}
	case "none":
		chat.ToolChoice = &engine.ToolChoice{Mode: "none"}
	case "tool":
		if !engine.HasToolNamed(chat.Tools, tc.Name) {
			return engine.FieldError("tool_choice.name", "names tool %q, which is not among the tools offered", tc.Name)
		}
		chat.ToolChoice = &engine.ToolChoice{Function: tc.Name}
	default:
		return engine.FieldError("tool_choice.type", "must be auto, any, tool or none, got %q", tc.Type)
	}
	if tc.DisableParallelToolUse != nil && *tc.DisableParallelToolUse {
		f := false
		chat.ParallelToolCalls = &f
	}
	return nil
}
