package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// Cohere is the adapter for Cohere's v2 API: /chat (plain and streamed)
// and /embed.
//
// Mapping: top_p -> p, stop -> stop_sequences, tool_choice required ->
// "REQUIRED", none -> "NONE", a forced function -> "REQUIRED" with only
// that tool offered; json_object/json_schema -> response_format
// {type:"json_object", json_schema}; presence_penalty and
// frequency_penalty are mapped to Cohere's 0..1 (cohPenalty).
// parallel_tool_calls and reasoning_effort are dropped.
type Cohere struct {
	baseURL string
	c       caller
	// models holds the operator's rules (nil: none).
	models *Models
}

var (
	_ engine.ChatModel = (*Cohere)(nil)
	_ engine.Embedder  = (*Cohere)(nil)
)

type cohRequest struct {
	Model            string         `json:"model"`
	Messages         []cohMessage   `json:"messages"`
	Tools            []engine.Tool  `json:"tools,omitempty"`
	StrictTools      bool           `json:"strict_tools,omitempty"`
	ToolChoice       string         `json:"tool_choice,omitempty"`
	Temperature      *float64       `json:"temperature,omitempty"`
	P                *float64       `json:"p,omitempty"`
	MaxTokens        *int           `json:"max_tokens,omitempty"`
	StopSequences    []string       `json:"stop_sequences,omitempty"`
	FrequencyPenalty *float64       `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64       `json:"presence_penalty,omitempty"`
	ResponseFormat   *cohRespFormat `json:"response_format,omitempty"`
	Stream           bool           `json:"stream,omitempty"`
}

type cohRespFormat struct {
	Type       string          `json:"type"`
	JSONSchema json.RawMessage `json:"json_schema,omitempty"`
}

type cohMessage struct {
	Role       string            `json:"role"`
	Content    any               `json:"content,omitempty"`
	ToolCalls  []engine.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
}

type cohPart struct {
	Type     string           `json:"type"`
	Text     string           `json:"text,omitempty"`
	ImageURL *engine.ImageURL `json:"image_url,omitempty"`
}

func buildCohereRequest(req *engine.ChatRequest, stream bool) *cohRequest {
	r := &cohRequest{Model: req.Model, Temperature: req.Temperature, P: cohTopP(req.TopP), MaxTokens: req.MaxTokens,
		StopSequences: req.Stop, FrequencyPenalty: cohPenalty(req.FrequencyPenalty), PresencePenalty: cohPenalty(req.PresencePenalty), Stream: stream}
	r.Messages = make([]cohMessage, 0, len(req.Messages))
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			r.Messages = append(r.Messages, cohMessage{Role: "system", Content: m.Content.String()})
		case "assistant":
			cm := cohMessage{Role: "assistant"}
			if s := m.Content.String(); s != "" {
				cm.Content = s
			}
			for _, tc := range m.ToolCalls {
				tc.Index = nil
				tc.Type = "function"
				tc.ExtraContent = nil
				cm.ToolCalls = append(cm.ToolCalls, tc)
			}
			r.Messages = append(r.Messages, cm)
		case "tool":
			r.Messages = append(r.Messages, cohMessage{Role: "tool", ToolCallID: m.ToolCallID, Content: m.Content.String()})
		default:
			r.Messages = append(r.Messages, cohMessage{Role: "user", Content: cohUserContent(m.Content)})
		}
	}
	if len(req.Tools) > 0 {
		r.Tools, r.StrictTools = cohTools(req.Tools)
		if tc := req.ToolChoice; tc != nil {
			switch {
			case tc.Function != "":
				r.ToolChoice = "REQUIRED"
				for _, t := range r.Tools {
					if t.Function.Name == tc.Function {
						r.Tools = []engine.Tool{t}
					}
				}
			case tc.Mode == "required":
				r.ToolChoice = "REQUIRED"
			case tc.Mode == "none":
				r.ToolChoice = "NONE"
			}
		}
	}
	if rf := req.ResponseFormat; rf != nil && (rf.Type == "json_object" || rf.Type == "json_schema") {
		r.ResponseFormat = &cohRespFormat{Type: "json_object"}
		if rf.Type == "json_schema" && rf.JSONSchema != nil {
			r.ResponseFormat.JSONSchema = rf.JSONSchema.Schema
		}
	}
	return r
}

// cohTools are tools without the per-function "strict" flag, which
// Cohere does not know (422 unknown field); strict is true when any tool
// asked for it, sent as Cohere's request-wide strict_tools
// (https://docs.cohere.com/reference/chat).
func cohTools(tools []engine.Tool) (out []engine.Tool, strict bool) {
	out = make([]engine.Tool, len(tools))
	for i, t := range tools {
		if t.Function.Strict != nil {
			strict = strict || *t.Function.Strict
			t.Function.Strict = nil
		}
		out[i] = t
	}
	return out, strict
}

// cohPenalty maps an OpenAI penalty (-2..2, 0 neutral) to Cohere's 0..1
// (https://docs.cohere.com/reference/chat, frequency_penalty and
// presence_penalty: "min value of 0.0, max value of 1.0"): a positive
// value is halved, so OpenAI's 2 is Cohere's 1; Cohere has no negative
// penalty (a bonus for repetition), so a negative value becomes 0.
func cohPenalty(v *float64) *float64 {
	if v == nil {
		return nil
	}
	x := min(max(*v/2, 0), 1)
	return &x
}

// cohTopP clamps top_p to Cohere's p range, 0.01..0.99
// (https://docs.cohere.com/reference/chat): the pipe default top_p 1
// becomes 0.99.
func cohTopP(v *float64) *float64 {
	if v == nil {
		return nil
	}
	x := min(max(*v, 0.01), 0.99)
	return &x
}

func cohUserContent(c engine.Content) any {
	if c.Parts == nil {
		return c.Text
	}
	parts := make([]cohPart, 0, len(c.Parts))
	for _, p := range c.Parts {
		switch {
		case p.Type == "text":
			parts = append(parts, cohPart{Type: "text", Text: p.Text})
		case p.Type == "image_url" && p.ImageURL != nil:
			parts = append(parts, cohPart{Type: "image_url", ImageURL: p.ImageURL})
		}
	}
	return parts
}

func (c *Cohere) headers(apiKey string) func(http.Header) {
	return func(h http.Header) {
		if apiKey != "" {
			h.Set("Authorization", "Bearer "+apiKey)
		}
	}
}

type cohUsage struct {
	Tokens *struct {
		InputTokens  float64 `json:"input_tokens"`
		OutputTokens float64 `json:"output_tokens"`
	} `json:"tokens"`
	BilledUnits *struct {
		InputTokens  float64 `json:"input_tokens"`
		OutputTokens float64 `json:"output_tokens"`
	} `json:"billed_units"`
}

// canonical reports billed_units, what Cohere charges and the catalogue
// prices, rather than tokens, which also count the prompt template Cohere
// adds (https://docs.cohere.com/docs/how-does-cohere-pricing-work); tokens
// only when billed_units is missing.
func (u *cohUsage) canonical() engine.Usage {
	var in, out int
	switch {
	case u == nil:
	case u.BilledUnits != nil:
		in, out = int(u.BilledUnits.InputTokens), int(u.BilledUnits.OutputTokens)
	case u.Tokens != nil:
		in, out = int(u.Tokens.InputTokens), int(u.Tokens.OutputTokens)
	}
	return engine.Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
}

// cohFinish maps a Cohere finish_reason to an OpenAI finish_reason.
func cohFinish(reason string) string {
	switch reason {
	case "MAX_TOKENS":
		return "length"
	case "TOOL_CALL":
		return "tool_calls"
	case "ERROR_TOXIC":
		return "content_filter"
	}
	return "stop"
}

type cohResponse struct {
	ID           string `json:"id"`
	FinishReason string `json:"finish_reason"`
	Message      struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		ToolCalls []engine.ToolCall `json:"tool_calls"`
	} `json:"message"`
	Usage *cohUsage `json:"usage"`
}

// Chat sends a non-stream v2 /chat request.
func (c *Cohere) Chat(ctx context.Context, req *engine.ChatRequest) (*engine.ChatResponse, error) {
	body, err := marshalWithExtra(c.build(req, false), req.Extra)
	if err != nil {
		return nil, err
	}
	call, err := c.c.post(ctx, c.baseURL+"/chat", body, false, c.headers(req.APIKey))
	if err != nil {
		return nil, err
	}
	var resp cohResponse
	if err := decodeResponse("cohere", call, &resp); err != nil {
		return nil, err
	}
	if resp.FinishReason == "ERROR" || resp.FinishReason == "TIMEOUT" {
		return nil, engine.Errorf(engine.CodeUpstream, "cohere ended the generation with %s", resp.FinishReason)
	}
	var text strings.Builder
	for _, p := range resp.Message.Content {
		if p.Type == "text" {
			text.WriteString(p.Text)
		}
	}
	for i := range resp.Message.ToolCalls {
		resp.Message.ToolCalls[i].Index = nil
		resp.Message.ToolCalls[i].Type = "function"
	}
	msg := engine.ResponseMessage{Role: "assistant", ToolCalls: resp.Message.ToolCalls, Annotations: []any{}}
	if text.Len() > 0 || len(msg.ToolCalls) == 0 {
		s := text.String()
		msg.Content = &s
	}
	return &engine.ChatResponse{ID: resp.ID, Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
		Choices: []engine.Choice{{Index: 0, Message: msg, FinishReason: cohFinish(resp.FinishReason)}}, Usage: resp.Usage.canonical()}, nil
}

// build is the chat request of req with the parameters the operator's
// rule of the model drops left out.
func (c *Cohere) build(req *engine.ChatRequest, stream bool) *cohRequest {
	r := buildCohereRequest(req, stream)
	for _, p := range c.models.cohDrop(req.Model) {
		switch p {
		case pTemperature:
			r.Temperature = nil
		case pTopP:
			r.P = nil
		case pPresencePenalty:
			r.PresencePenalty = nil
		case pFrequencyPenalty:
			r.FrequencyPenalty = nil
		case pStop:
			r.StopSequences = nil
		}
	}
	return r
}
