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
// tool_choice required -> {type:any} (auto plus a system instruction on
// models that refuse forced tools); parallel_tool_calls=false ->
// disable_parallel_tool_use. json_schema is output_config.format on models
// that have it, else a forced tool whose input is the answer (sent back as
// text content); json_object adds a system instruction. Penalties are
// dropped; sampling parameters, reasoning_effort (thinking and
// output_config.effort) follow the model's rule in antRules. Thinking
// blocks that precede tool calls travel in the first call's extra_content
// and are sent back on the next turn, as tool use with thinking requires,
// to the model that produced them only.
type Anthropic struct {
	baseURL string
	c       caller
	// models holds the operator's rules (nil: the built-in ones only).
	models *Models
}

// rule is the rule of a Claude model: the operator's, else the built-in.
func (a *Anthropic) rule(model string) antRule {
	if r := a.models.antRule(model); r != nil {
		return *r
	}
	return antRuleFor(model)
}

var _ engine.ChatModel = (*Anthropic)(nil)

// AnthropicVersion is the anthropic-version header sent on every call.
const AnthropicVersion = "2023-06-01"

// anthropicDefaultMaxTokens is sent when the request sets no max_tokens,
// which the Messages API requires.
const anthropicDefaultMaxTokens = 4096

type antRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	System    string `json:"system,omitempty"`
	// SystemBlocks, when set, is sent as system instead of System: the
	// system prompt as text blocks, for prompt-cache breakpoints.
	SystemBlocks  []antBlock     `json:"-"`
	Messages      []antMessage   `json:"messages"`
	Tools         []antTool      `json:"tools,omitempty"`
	ToolChoice    *antToolChoice `json:"tool_choice,omitempty"`
	Temperature   *float64       `json:"temperature,omitempty"`
	TopP          *float64       `json:"top_p,omitempty"`
	StopSequences []string       `json:"stop_sequences,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	Thinking      *antThinking   `json:"thinking,omitempty"`
	OutputConfig  *antOutput     `json:"output_config,omitempty"`
	jsonTool      string         // name of the forced json_schema tool, if any
}

type antThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

type antOutput struct {
	Effort string     `json:"effort,omitempty"`
	Format *antFormat `json:"format,omitempty"`
}

type antFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
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
	// Content is a tool result's content: a string Hearth sends, or the
	// array of blocks of a server tool result (web search) it receives.
	Content json.RawMessage `json:"content,omitempty"`
	// CacheControl is a prompt-cache breakpoint ({"type":"ephemeral"}).
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
	// raw, when set, is sent instead of the fields: thinking blocks go
	// back byte for byte as the API gave them.
	raw json.RawMessage
}

// MarshalJSON writes raw when set, else the fields.
func (b antBlock) MarshalJSON() ([]byte, error) {
	if b.raw != nil {
		return b.raw, nil
	}
	type plain antBlock
	return json.Marshal(plain(b))
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
	// CacheControl is a prompt-cache breakpoint on the tools up to this one.
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

type antToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

const jsonObjectInstruction = "Respond only with a single valid JSON object, without any text before or after it."

func buildAnthropicRequest(req *engine.ChatRequest, stream bool) *antRequest {
	return buildAnthropicRequestRule(req, stream, antRuleFor(req.Model))
}

// buildAnthropicRequestRule is the Messages request of req under rule.
func buildAnthropicRequestRule(req *engine.ChatRequest, stream bool, rule antRule) *antRequest {
	r := &antRequest{Model: req.Model, MaxTokens: anthropicDefaultMaxTokens, Temperature: req.Temperature,
		TopP: req.TopP, StopSequences: req.Stop, Stream: stream}
	if req.MaxTokens != nil {
		r.MaxTokens = *req.MaxTokens
	}
	var system []antBlock
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			system = append(system, antSystemBlocks(m)...)
		case "assistant":
			r.Messages = appendAntMessage(r.Messages, "assistant", withCacheControl(antAssistantBlocks(m, req.Model, rule), m.CacheControl))
		case "tool":
			text, _ := json.Marshal(m.Content.String())
			r.Messages = appendAntMessage(r.Messages, "user", []antBlock{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: text, CacheControl: m.CacheControl}})
		default:
			r.Messages = appendAntMessage(r.Messages, "user", withCacheControl(antUserBlocks(m.Content), m.CacheControl))
		}
	}
	for _, t := range req.Tools {
		r.Tools = append(r.Tools, antTool{Name: t.Function.Name, Description: t.Function.Description, InputSchema: schemaOr(t.Function.Parameters), CacheControl: t.CacheControl})
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
		case rf.Type == "json_schema" && rf.JSONSchema != nil && rule.format && len(rf.JSONSchema.Schema) > 0 && string(rf.JSONSchema.Schema) != "null":
			r.OutputConfig = &antOutput{Format: &antFormat{Type: "json_schema", Schema: rf.JSONSchema.Schema}}
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
			system = append(system, antBlock{Type: "text", Text: jsonObjectInstruction})
		}
	}
	if tc := r.ToolChoice; rule.always && tc != nil && (tc.Type == "any" || tc.Type == "tool") {
		system = append(system, antBlock{Type: "text", Text: forcedToolInstruction(tc)})
		tc.Type, tc.Name = "auto", ""
	}
	r.System, r.SystemBlocks = antSystem(system)
	foreign := antForeignToolTurn(r.Messages, req.Messages)
	if foreign >= 0 && rule.always {
		antToolTurnAsText(r.Messages, foreign)
	}
	applyAntRule(r, rule, req.ReasoningEffort, foreign >= 0 && !rule.always)
	return r
}

// forcedToolInstruction asks in words for the tool use tc forces, for
// models that refuse forced tool use.
func forcedToolInstruction(tc *antToolChoice) string {
	if tc.Type == "tool" {
		return "You must call the tool `" + tc.Name + "` in this turn; do not answer in text instead."
	}
	return "You must call one of the provided tools in this turn; do not answer in text instead."
}

// applyAntRule sets thinking and effort from reasoning_effort and drops
// the sampling parameters the model or thinking does not take. With
// thinking on, the API accepts only temperature 1 and top_p 0.95-1, and
// only tool_choice auto or none
// (https://platform.claude.com/docs/en/build-with-claude/extended-thinking),
// so a forced tool (or the forced json_schema tool) keeps thinking off.
// Models that think by default get thinking disabled for effort "none"
// and forced tools, or, when they always think, the lowest effort; while
// they think, the pipe default max_tokens becomes rule.thinkMaxTokens.
// unthinking keeps thinking off: the request answers tool calls made
// without this model's thinking (anthropic_foreign.go).
func applyAntRule(r *antRequest, rule antRule, effort string, unthinking bool) {
	forced := r.ToolChoice != nil && (r.ToolChoice.Type == "any" || r.ToolChoice.Type == "tool")
	forced = forced || unthinking
	thinks := rule.byDefault
	switch {
	case rule.always:
		if effort == "none" {
			effort = "low"
		}
	case rule.byDefault && (effort == "none" || forced):
		r.Thinking = &antThinking{Type: "disabled"}
		thinks = false
	}
	if effort != "" && effort != "none" {
		if rule.effort {
			if r.OutputConfig == nil {
				r.OutputConfig = &antOutput{}
			}
			r.OutputConfig.Effort = effort
		}
		switch {
		case forced || rule.byDefault:
		case rule.thinking == "adaptive":
			r.Thinking = &antThinking{Type: "adaptive"}
			thinks = true
		case rule.thinking == "budget":
			if b, ok := antBudgets[effort]; ok {
				r.Thinking = &antThinking{Type: "enabled", BudgetTokens: b}
				thinks = true
				if r.MaxTokens <= b {
					r.MaxTokens += b
				}
			}
		}
	}
	if thinks && rule.thinkMaxTokens > 0 && r.MaxTokens == langbaseDefaultMaxTokens {
		r.MaxTokens = rule.thinkMaxTokens
	}
	switch {
	case !rule.sampling || thinks:
		r.Temperature, r.TopP = nil, nil
	case rule.oneSampler && r.Temperature != nil:
		r.TopP = nil
	}
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
			out = append(out, antBlock{Type: "text", Text: p.Text, CacheControl: p.CacheControl})
		case p.Type == "image_url" && p.ImageURL != nil:
			if mt, data, ok := parseDataURL(p.ImageURL.URL); ok {
				out = append(out, antBlock{Type: "image", Source: &antSource{Type: "base64", MediaType: mt, Data: data}, CacheControl: p.CacheControl})
			} else {
				out = append(out, antBlock{Type: "image", Source: &antSource{Type: "url", URL: p.ImageURL.URL}, CacheControl: p.CacheControl})
			}
		case p.Type == "file" && p.File != nil:
			if mt, data, ok := parseDataURL(p.File.FileData); ok {
				out = append(out, antBlock{Type: "document", Source: &antSource{Type: "base64", MediaType: mt, Data: data}, CacheControl: p.CacheControl})
			}
		}
	}
	return out
}

func (a *Anthropic) headers(apiKey, beta string) func(http.Header) {
	return func(h http.Header) {
		if apiKey != "" {
			h.Set("x-api-key", apiKey)
		}
		h.Set("anthropic-version", AnthropicVersion)
		if beta != "" {
			h.Set("anthropic-beta", beta)
		}
	}
}

// antBetaParam is the custom model parameter sent as the anthropic-beta
// header (1M context, mid-conversation tool changes and other betas).
const antBetaParam = "anthropic_beta"

// antBetaHeader takes anthropic_beta (a string or an array of strings)
// out of the custom model parameters: it returns the others and the
// header value, comma-separated.
func antBetaHeader(extra map[string]json.RawMessage) (map[string]json.RawMessage, string, error) {
	raw, ok := extra[antBetaParam]
	if !ok {
		return extra, "", nil
	}
	var list []string
	var one string
	switch {
	case json.Unmarshal(raw, &one) == nil:
		list = strings.Split(one, ",")
	case json.Unmarshal(raw, &list) == nil:
	default:
		return nil, "", engine.FieldError(antBetaParam, "must be a string or an array of strings naming Anthropic betas, got %s", raw)
	}
	names := make([]string, 0, len(list))
	for _, b := range list {
		if b = strings.TrimSpace(b); b != "" {
			names = append(names, b)
		}
	}
	rest := make(map[string]json.RawMessage, len(extra)-1)
	for k, v := range extra {
		if k != antBetaParam {
			rest[k] = v
		}
	}
	return rest, strings.Join(names, ","), nil
}

type antUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	// CacheCreation splits the cache writes by lifetime.
	CacheCreation *struct {
		Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

// canonical is u in OpenAI's shape. Cache reads are cached prompt tokens.
// Anthropic counts thinking in output_tokens without a breakdown, so when
// the answer thought, its reasoning tokens are the output beyond the
// visible answer (seen bytes of text and tool calls, at about four bytes a
// token): an estimate, exact only in its total.
func (u antUsage) canonical(thought bool, seen int) engine.Usage {
	p := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
	out := engine.Usage{PromptTokens: p, CompletionTokens: u.OutputTokens, TotalTokens: p + u.OutputTokens, CacheCreationTokens: u.CacheCreationInputTokens}
	if u.CacheCreation != nil {
		out.CacheCreation1hTokens = min(u.CacheCreation.Ephemeral1h, u.CacheCreationInputTokens)
	}
	if u.CacheReadInputTokens > 0 {
		out.PromptTokensDetails = &engine.PromptTokensDetails{CachedTokens: u.CacheReadInputTokens}
	}
	if thought {
		if r := u.OutputTokens - (seen+3)/4; r > 0 {
			out.CompletionTokensDetails = &engine.CompletionTokensDetails{ReasoningTokens: r}
		}
	}
	return out
}

// visible is the size in bytes of an answer's visible output.
func visible(text string, calls []engine.ToolCall) int {
	n := len(text)
	for _, c := range calls {
		n += len(c.Function.Name) + len(c.Function.Arguments)
	}
	return n
}

type antResponse struct {
	ID           string            `json:"id"`
	Model        string            `json:"model"`
	Content      []json.RawMessage `json:"content"`
	StopReason   string            `json:"stop_reason"`
	StopSequence string            `json:"stop_sequence"`
	Usage        antUsage          `json:"usage"`
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
	ar := buildAnthropicRequestRule(req, false, a.rule(req.Model))
	extra, beta, err := antBetaHeader(req.Extra)
	if err != nil {
		return nil, err
	}
	body, err := encodeAnthropicRequest(ar, extra)
	if err != nil {
		return nil, err
	}
	call, err := a.c.post(ctx, a.baseURL+"/messages", body, false, a.headers(req.APIKey, beta))
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
	var thinking []json.RawMessage
	var types, ids []string
	for _, raw := range resp.Content {
		var b antBlock
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		if b.Type != "text" || b.Text != "" {
			types, ids = append(types, b.Type), append(ids, b.ID)
		}
		switch b.Type {
		case "thinking", "redacted_thinking":
			thinking = append(thinking, raw)
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
	if len(calls) > 0 && len(thinking) > 0 {
		calls[0].ExtraContent = extraWith(calls[0].ExtraContent, "anthropic", antExtra{Thinking: thinking, Model: req.Model, Layout: antLayoutOf(types, ids)})
	} else if len(thinking) > 0 {
		msg.Thinking = thinking
	}
	if text.Len() > 0 || len(calls) == 0 {
		s := text.String()
		msg.Content = &s
	}
	return &engine.ChatResponse{ID: resp.ID, Object: "chat.completion", Created: time.Now().Unix(), Model: resp.Model,
		Choices: []engine.Choice{{Index: 0, Message: msg, FinishReason: finish, StopSequence: resp.StopSequence}}, Usage: resp.Usage.canonical(len(thinking) > 0, visible(text.String(), calls))}, nil
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
