package server

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/agent"
)

// responsesBody is the body of POST /openai/v1/responses
// (https://platform.openai.com/docs/api-reference/responses/create).
// Fields whose JSON shape varies stay raw and are checked by translate,
// so every error names the field. Unknown keys are ignored, like the
// accepted fields that change nothing here (include, service_tier,
// prompt_cache_key, safety_identifier, stream_options, top_logprobs,
// max_tool_calls).
type responsesBody struct {
	Model              string              `json:"model"`
	Input              json.RawMessage     `json:"input"`
	Instructions       *string             `json:"instructions"`
	Tools              []json.RawMessage   `json:"tools"`
	ToolChoice         json.RawMessage     `json:"tool_choice"`
	ParallelToolCalls  *bool               `json:"parallel_tool_calls"`
	Text               *responsesText      `json:"text"`
	Reasoning          *responsesReasoning `json:"reasoning"`
	MaxOutputTokens    *float64            `json:"max_output_tokens"`
	Temperature        *float64            `json:"temperature"`
	TopP               *float64            `json:"top_p"`
	Metadata           map[string]string   `json:"metadata"`
	Store              *bool               `json:"store"`
	PreviousResponseID *string             `json:"previous_response_id"`
	Stream             bool                `json:"stream"`
	User               *string             `json:"user"`
	Truncation         *string             `json:"truncation"`
	Background         bool                `json:"background"`
	Conversation       json.RawMessage     `json:"conversation"`
	Prompt             json.RawMessage     `json:"prompt"`
	// Cache is Hearth's response cache mode (on, off, refresh), sent in
	// the SDK's extra body; the LB-Cache header wins over it.
	Cache string `json:"cache"`
}

// responsesText is the text field: the output format.
type responsesText struct {
	Format    json.RawMessage `json:"format"`
	Verbosity *string         `json:"verbosity"`
}

// responsesReasoning is the reasoning field.
type responsesReasoning struct {
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
}

// responsesEfforts maps Responses reasoning efforts to Hearth's
// reasoning_effort (none, low, medium, high): minimal is read as low and
// xhigh as high, the nearest effort every provider rule understands.
var responsesEfforts = map[string]string{"none": "none", "minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high"}

// chatFieldNames maps the chat-completions names of fields that
// CompletionRequest.Validate reports to their names in a Responses body.
var chatFieldNames = []struct{ chat, responses string }{
	{"response_format.json_schema.", "text.format."},
	{"response_format.json_schema", "text.format"},
	{"response_format", "text.format"},
	{"max_tokens", "max_output_tokens"},
	{"reasoning_effort", "reasoning.effort"},
	{"tool_choice.function.name", "tool_choice.name"},
	{".function.", "."},
}

// renameChatField rewrites a field error of the chat translation in the
// Responses body's terms.
func renameChatField(err error) error {
	ee, ok := err.(*engine.Error)
	if !ok || ee.Field == "" {
		return err
	}
	field := ee.Field
	for _, r := range chatFieldNames {
		field = strings.Replace(field, r.chat, r.responses, 1)
	}
	if field == ee.Field {
		return err
	}
	out := *ee
	out.Field = field
	out.Message = field + strings.TrimPrefix(ee.Message, ee.Field)
	return &out
}

// translate checks the body's options and builds the chat request they
// ask for, without messages (responsesInput reads those), and the map
// of the tools it offers.
func (b *responsesBody) translate() (*engine.ChatRequest, *toolMap, error) {
	if b.Background {
		return nil, nil, engine.FieldError("background", "background responses are not supported: send the request without background (stream it to see progress)")
	}
	if engine.JSONKind(b.Conversation) != "null" {
		return nil, nil, engine.FieldError("conversation", "conversations are not supported: continue a stored response with previous_response_id")
	}
	if engine.JSONKind(b.Prompt) != "null" {
		return nil, nil, engine.FieldError("prompt", "prompt templates are not supported: send instructions and input (or run a Hearth pipe with the model pipe:<name>)")
	}
	if b.Truncation != nil && *b.Truncation != "disabled" && *b.Truncation != "auto" {
		return nil, nil, engine.FieldError("truncation", "must be auto or disabled, got %q", *b.Truncation)
	}
	if err := validateResponseMetadata(b.Metadata); err != nil {
		return nil, nil, err
	}
	cr := agent.CompletionRequest{
		Messages:          json.RawMessage(`[{"role":"user","content":"-"}]`),
		ParallelToolCalls: b.ParallelToolCalls,
		Temperature:       b.Temperature, TopP: b.TopP, MaxTokens: b.MaxOutputTokens,
	}
	tm, err := responsesTools(b.Tools)
	if err != nil {
		return nil, nil, err
	}
	cr.Tools = tm.chat
	if cr.ToolChoice, err = responsesToolChoice(b.ToolChoice); err != nil {
		return nil, nil, err
	}
	if b.Text != nil {
		if cr.ResponseFormat, err = responsesFormat(b.Text.Format); err != nil {
			return nil, nil, err
		}
	}
	if b.Reasoning != nil && b.Reasoning.Effort != nil {
		effort, ok := responsesEfforts[*b.Reasoning.Effort]
		if !ok {
			return nil, nil, engine.FieldError("reasoning.effort", "must be one of none, minimal, low, medium, high, xhigh, got %q", *b.Reasoning.Effort)
		}
		cr.ReasoningEffort = &effort
	}
	chat, err := cr.Validate()
	if err != nil {
		return nil, nil, renameChatField(err)
	}
	chat.Messages = nil
	return chat, tm, nil
}

// validateResponseMetadata applies OpenAI's metadata limits: at most 16
// pairs, keys up to 64 characters, values up to 512.
func validateResponseMetadata(md map[string]string) error {
	if len(md) > 16 {
		return engine.FieldError("metadata", "at most 16 pairs, got %d", len(md))
	}
	for k, v := range md {
		if k == "" || len(k) > 64 {
			return engine.FieldError("metadata", "keys must be 1-64 characters, got %q", k)
		}
		if len(v) > 512 {
			return engine.FieldError("metadata."+k, "must be at most 512 characters")
		}
	}
	return nil
}

// responsesToolChoice turns the Responses tool_choice ("auto", "none",
// "required" or {type: function, name}) into the chat form.
func responsesToolChoice(raw json.RawMessage) (json.RawMessage, error) {
	if engine.JSONKind(raw) != "object" {
		return raw, nil
	}
	var o struct {
		Type string  `json:"type"`
		Name *string `json:"name"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return nil, engine.FieldError("tool_choice", "must be auto, none, required or {type: function, name}")
	}
	if o.Type != "function" && o.Type != "custom" {
		return nil, engine.FieldError("tool_choice.type", "must be function or custom, got %q", o.Type)
	}
	if o.Name == nil || *o.Name == "" {
		return nil, engine.FieldError("tool_choice.name", "is required")
	}
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": *o.Name}})
	return b, nil
}

// responsesFormat turns text.format ({type: text | json_object |
// json_schema, name, schema, description, strict}) into a chat
// response_format.
func responsesFormat(raw json.RawMessage) (json.RawMessage, error) {
	if engine.JSONKind(raw) == "null" {
		return nil, nil
	}
	var f struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Schema      json.RawMessage `json:"schema,omitempty"`
		Description string          `json:"description,omitempty"`
		Strict      *bool           `json:"strict,omitempty"`
	}
	if engine.JSONKind(raw) != "object" || json.Unmarshal(raw, &f) != nil {
		return nil, engine.FieldError("text.format", "must be an object {type: text | json_object | json_schema, name?, schema?}")
	}
	if f.Type != "json_schema" {
		b, _ := json.Marshal(map[string]string{"type": f.Type})
		return b, nil
	}
	js := map[string]any{"name": f.Name}
	if len(f.Schema) > 0 {
		js["schema"] = f.Schema
	}
	if f.Description != "" {
		js["description"] = f.Description
	}
	if f.Strict != nil {
		js["strict"] = *f.Strict
	}
	b, _ := json.Marshal(map[string]any{"type": "json_schema", "json_schema": js})
	return b, nil
}

// elemName names the i-th element of list ("input[2]").
func elemName(list string, i int) string {
	return list + "[" + strconv.Itoa(i) + "]"
}
