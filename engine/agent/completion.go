package agent

import (
	"encoding/json"
	"fmt"
	"github.com/hearth-dev/hearth/engine"
	"math"
)

// CompletionRequest is the body of an OpenAI chat completion
// (https://platform.openai.com/docs/api-reference/chat/create), as the
// OpenAI-compatible surface accepts it. Fields whose JSON shape varies stay
// raw and are checked by Validate, so every error names the field.
// Unknown keys are ignored.
type CompletionRequest struct {
	Model               string            `json:"model"`
	Messages            json.RawMessage   `json:"messages"`
	Stream              bool              `json:"stream"`
	StreamOptions       *StreamOptions    `json:"stream_options"`
	Tools               []json.RawMessage `json:"tools"`
	ToolChoice          json.RawMessage   `json:"tool_choice"`
	ParallelToolCalls   *bool             `json:"parallel_tool_calls"`
	ResponseFormat      json.RawMessage   `json:"response_format"`
	N                   *float64          `json:"n"`
	Temperature         *float64          `json:"temperature"`
	TopP                *float64          `json:"top_p"`
	MaxTokens           *float64          `json:"max_tokens"`
	MaxCompletionTokens *float64          `json:"max_completion_tokens"`
	Stop                json.RawMessage   `json:"stop"`
	Seed                *float64          `json:"seed"`
	PresencePenalty     *float64          `json:"presence_penalty"`
	FrequencyPenalty    *float64          `json:"frequency_penalty"`
	User                string            `json:"user"`
	ReasoningEffort     *string           `json:"reasoning_effort"`
	// Cache is Hearth's response cache mode for this request (on, off,
	// refresh); the LB-Cache header wins over it. It is not sent upstream.
	Cache string `json:"cache"`
}

// StreamOptions are the stream_options of a streamed completion.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Validate checks the request and builds the provider-neutral chat
// request. Only what the caller sent is set: the provider's own defaults
// apply to the rest.
func (r *CompletionRequest) Validate() (*engine.ChatRequest, error) {
	msgs, err := completionMessages(r.Messages)
	if err != nil {
		return nil, err
	}
	chat := &engine.ChatRequest{Messages: msgs, ParallelToolCalls: r.ParallelToolCalls}
	if r.N != nil && *r.N != 1 {
		return nil, engine.FieldError("n", "only n=1 is supported, got %g", *r.N)
	}
	if chat.Tools, err = agentTools(r.Tools); err != nil {
		return nil, err
	}
	if chat.ToolChoice, err = agentToolChoice(r.ToolChoice); err != nil {
		return nil, err
	}
	if tc := chat.ToolChoice; tc != nil && tc.Function != "" && !engine.HasToolNamed(chat.Tools, tc.Function) {
		return nil, engine.FieldError("tool_choice", "names function %q, which is not among the tools offered", tc.Function)
	}
	if r.ReasoningEffort != nil {
		if !reasoningEfforts[*r.ReasoningEffort] {
			return nil, engine.FieldError("reasoning_effort", "must be one of none, low, medium, high, got %q", *r.ReasoningEffort)
		}
		chat.ReasoningEffort = *r.ReasoningEffort
	}
	for _, n := range []struct {
		field  string
		v      *float64
		lo, hi float64
		dst    **float64
	}{
		{"temperature", r.Temperature, 0, 2, &chat.Temperature},
		{"top_p", r.TopP, 0, 1, &chat.TopP},
		{"presence_penalty", r.PresencePenalty, -2, 2, &chat.PresencePenalty},
		{"frequency_penalty", r.FrequencyPenalty, -2, 2, &chat.FrequencyPenalty},
	} {
		if n.v != nil {
			if *n.dst, err = numberInRange(n.field, n.v, n.lo, n.hi, 0); err != nil {
				return nil, err
			}
		}
	}
	if r.MaxTokens != nil || r.MaxCompletionTokens != nil {
		if chat.MaxTokens, err = agentMaxTokens(r.MaxTokens, r.MaxCompletionTokens); err != nil {
			return nil, err
		}
	}
	if chat.Stop, err = agentStop(r.Stop); err != nil {
		return nil, err
	}
	if chat.ResponseFormat, err = agentResponseFormat(r.ResponseFormat); err != nil {
		return nil, err
	}
	if chat.ResponseFormat != nil && chat.ResponseFormat.Type == "text" {
		chat.ResponseFormat = nil
	}
	if r.Seed != nil {
		if *r.Seed != math.Trunc(*r.Seed) || math.Abs(*r.Seed) > 1<<53 {
			return nil, engine.FieldError("seed", "must be an integer, got %g", *r.Seed)
		}
		chat.Extra = map[string]json.RawMessage{"seed": json.RawMessage(fmt.Sprint(int64(*r.Seed)))}
	}
	return chat, nil
}

// completionMessages reads messages: a non-empty array of chat messages.
// OpenAI's "developer" role is read as "system", which every provider
// understands.
func completionMessages(raw json.RawMessage) ([]engine.Message, error) {
	if engine.JSONKind(raw) != "array" {
		return nil, engine.FieldError("messages", "is required: an array of messages, got %s", engine.JSONKind(raw))
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return nil, engine.FieldError("messages", "is not a valid array")
	}
	if len(raws) == 0 {
		return nil, engine.FieldError("messages", "must hold at least one message")
	}
	if len(raws) > engine.MaxRunMessages {
		return nil, engine.FieldError("messages", "at most %d messages", engine.MaxRunMessages)
	}
	msgs := make([]engine.Message, len(raws))
	for i, m := range raws {
		if mayBeDeveloper(m) && isDeveloper(m) {
			var obj map[string]json.RawMessage
			json.Unmarshal(m, &obj)
			obj["role"] = json.RawMessage(`"system"`)
			m, _ = json.Marshal(obj)
		}
		var err error
		if msgs[i], err = inputMessage("messages", i, m); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}
