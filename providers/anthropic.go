package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Anthropic is the adapter for the Anthropic Messages API.
//
// Mapping: system/developer messages become the top-level system prompt;
// tool calls become tool_use blocks and tool messages tool_result blocks;
// tool_choice required -> {type:any}; parallel_tool_calls=false ->
// disable_parallel_tool_use. json_schema is produced with a forced tool
// whose input is the answer (sent back as text content); json_object adds a
// system instruction. Penalties and reasoning_effort are dropped; top_p is
// dropped when temperature is set (newer models reject both).
type Anthropic struct {
	baseURL string
	c       caller
}

var _ engine.ChatModel = (*Anthropic)(nil)

// AnthropicVersion is the anthropic-version header sent on every call.
const AnthropicVersion = "2023-06-01"

// anthropicDefaultMaxTokens is sent when the request sets no max_tokens,
// which the Messages API requires.
const anthropicDefaultMaxTokens = 4096

type antRequest struct {
	Model         string         `json:"model"`
	MaxTokens     int            `json:"max_tokens"`
	System        string         `json:"system,omitempty"`
	Messages      []antMessage   `json:"messages"`
	Tools         []antTool      `json:"tools,omitempty"`
	ToolChoice    *antToolChoice `json:"tool_choice,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	TopP          *float64       `json:"top_p,omitempty"`
	StopSequences []string       `json:"stop_sequences,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	jsonTool      string         // name of the forced json_schema tool, if any
}

type antMessage struct {
	Role    string     `json:"role"`
	Content []antBlock `json:"content"`
}

type antBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Source    *antSource      `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type antSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type antTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type antToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

const jsonObjectInstruction = "Respond only with a single valid JSON object, without any text before or after it."

func buildAnthropicRequest(req *engine.ChatRequest, stream bool) *antRequest {
	r := &antRequest{Model: req.Model, MaxTokens: anthropicDefaultMaxTokens, Temperature: req.Temperature,
		TopP: req.TopP, StopSequences: req.Stop, Stream: stream}
	if req.MaxTokens != nil {
		r.MaxTokens = *req.MaxTokens
	}
	if r.Temperature != nil {
		r.TopP = nil
	}
	var system []string
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			if s := m.Content.String(); s != "" {
				system = append(system, s)
			}
		case "assistant":
			var blocks []antBlock
			if s := m.Content.String(); s != "" {
				blocks = append(blocks, antBlock{Type: "text", Text: s})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, antBlock{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name, Input: jsonObjectOr(tc.Function.Arguments)})
			}
			r.Messages = appendAntMessage(r.Messages, "assistant", blocks)
		case "tool":
			r.Messages = appendAntMessage(r.Messages, "user", []antBlock{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content.String()}})
		default:
			r.Messages = appendAntMessage(r.Messages, "user", antUserBlocks(m.Content))
		}
	}
	for _, t := range req.Tools {
		r.Tools = append(r.Tools, antTool{Name: t.Function.Name, Description: t.Function.Description, InputSchema: schemaOr(t.Function.Parameters)})
	}
	if len(r.Tools) > 0 && req.ToolChoice != nil {
		switch {
		case req.ToolChoice.Function != "":
			r.ToolChoice = &antToolChoice{Type: "tool", Name: req.ToolChoice.Function}
		case req.ToolChoice.Mode == "required":
			r.ToolChoice = &antToolChoice{Type: "any"}
		case req.ToolChoice.Mode == "none":
			r.ToolChoice = &antToolChoice{Type: "none"}
		case req.ToolChoice.Mode == "auto":
			r.ToolChoice = &antToolChoice{Type: "auto"}
		}
	}
	if len(r.Tools) > 0 && req.ParallelToolCalls != nil && !*req.ParallelToolCalls {
		if r.ToolChoice == nil {
			r.ToolChoice = &antToolChoice{Type: "auto"}
		}
		if r.ToolChoice.Type != "none" {
			r.ToolChoice.DisableParallelToolUse = true
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		switch {
		case rf.Type == "json_schema" && rf.JSONSchema != nil && len(req.Tools) == 0:
			name := rf.JSONSchema.Name
			if name == "" {
				name = "json_response"
			}
			desc := rf.JSONSchema.Description
			if desc == "" {
				desc = "Give the answer as the input of this tool, following its schema."
			}
			r.Tools = []antTool{{Name: name, Description: desc, InputSchema: schemaOr(rf.JSONSchema.Schema)}}
			r.ToolChoice = &antToolChoice{Type: "tool", Name: name}
			r.jsonTool = name
		case rf.Type == "json_object" || rf.Type == "json_schema":
			system = append(system, jsonObjectInstruction)
		}
	}
	r.System = strings.Join(system, "\n\n")
	return r
}

// appendAntMessage merges consecutive same-role messages: the Messages API
// wants tool_result blocks together in one user turn.
func appendAntMessage(msgs []antMessage, role string, blocks []antBlock) []antMessage {
	if len(blocks) == 0 {
		return msgs
	}
	if n := len(msgs); n > 0 && msgs[n-1].Role == role {
		msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
		return msgs
	}
	return append(msgs, antMessage{Role: role, Content: blocks})
}

func antUserBlocks(c engine.Content) []antBlock {
	if c.Parts == nil {
		if c.Text == "" {
			return nil
		}
		return []antBlock{{Type: "text", Text: c.Text}}
	}
	var out []antBlock
	for _, p := range c.Parts {
		switch {
		case p.Type == "text" && p.Text != "":
			out = append(out, antBlock{Type: "text", Text: p.Text})
		case p.Type == "image_url" && p.ImageURL != nil:
			if mt, data, ok := parseDataURL(p.ImageURL.URL); ok {
				out = append(out, antBlock{Type: "image", Source: &antSource{Type: "base64", MediaType: mt, Data: data}})
			} else {
				out = append(out, antBlock{Type: "image", Source: &antSource{Type: "url", URL: p.ImageURL.URL}})
			}
		}
	}
	return out
}

func (a *Anthropic) headers(apiKey string) func(http.Header) {
	return func(h http.Header) {
		if apiKey != "" {
			h.Set("x-api-key", apiKey)
		}
		h.Set("anthropic-version", AnthropicVersion)
	}
}

type antUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

func (u antUsage) canonical() engine.Usage {
	p := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
	out := engine.Usage{PromptTokens: p, CompletionTokens: u.OutputTokens, TotalTokens: p + u.OutputTokens}
	if u.CacheReadInputTokens > 0 {
		out.PromptTokensDetails = &engine.PromptTokensDetails{CachedTokens: u.CacheReadInputTokens}
	}
	return out
}

type antResponse struct {
	ID         string     `json:"id"`
	Model      string     `json:"model"`
	Content    []antBlock `json:"content"`
	StopReason string     `json:"stop_reason"`
	Usage      antUsage   `json:"usage"`
}

// antFinish maps a stop_reason to an OpenAI finish_reason.
func antFinish(reason string) string {
	switch reason {
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "tool_use":
		return "tool_calls"
	case "refusal":
		return "content_filter"
	default:
		return "stop"
	}
}

// Chat sends a non-stream Messages request.
func (a *Anthropic) Chat(ctx context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	ar := buildAnthropicRequest(req, false)
	body, err := marshalWithExtra(ar, req.Extra)
	if err != nil {
		return nil, err
	}
	call, err := a.c.post(ctx, a.baseURL+"/messages", body, false, a.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	var resp antResponse
	if err := decodeResponse("anthropic", call, &resp); err != nil {
		return nil, err
	}
	var text strings.Builder
	var calls []engine.ToolCall
	finish := antFinish(resp.StopReason)
	for _, b := range resp.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if ar.jsonTool != "" && b.Name == ar.jsonTool {
				text.Write(b.Input)
				finish = "stop"
				continue
			}
			calls = append(calls, engine.ToolCall{ID: b.ID, Type: "function", Function: engine.FunctionCall{Name: b.Name, Arguments: string(b.Input)}})
		}
	}
	msg := engine.ResponseMessage{Role: "assistant", ToolCalls: calls, Annotations: []any{}}
	if text.Len() > 0 || len(calls) == 0 {
		s := text.String()
		msg.Content = &s
	}
	return &engine.ChatResponse{ID: resp.ID, Object: "chat.completion", Created: time.Now().Unix(), Model: resp.Model,
		Choices: []engine.Choice{{Index: 0, Message: msg, FinishReason: finish}}, Usage: resp.Usage.canonical()}, nil
}

// jsonObjectOr returns s as raw JSON when it is a JSON object, else {}.
func jsonObjectOr(s string) json.RawMessage {
	b := []byte(strings.TrimSpace(s))
	if len(b) > 0 && b[0] == '{' && json.Valid(b) {
		return b
	}
	return json.RawMessage(`{}`)
}

func schemaOr(s json.RawMessage) json.RawMessage {
	if len(s) == 0 || string(s) == "null" {
		return emptyObjectSchema
	}
	return s
}

// parseDataURL splits "data:<mime>;base64,<data>".
func parseDataURL(u string) (mime, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	meta, data, found := strings.Cut(rest, ",")
	if !found {
		return "", "", false
	}
	mime, _, _ = strings.Cut(meta, ";")
	return mime, data, strings.HasSuffix(meta, ";base64")
}
