package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// cacheKeyVersion changes when the key's inputs change, so entries written
// by an older release are never read as answers to a new question.
const cacheKeyVersion = 1

// cacheKeyInput is everything that determines a model's answer: the model,
// the messages after assembly, tools, sampling parameters and response
// format. The provider key is never part of it.
type cacheKeyInput struct {
	V                 int                        `json:"v"`
	Model             string                     `json:"model"`
	Stream            bool                       `json:"stream"`
	Messages          []Message                  `json:"messages"`
	Tools             []Tool                     `json:"tools,omitempty"`
	ToolChoice        *ToolChoice                `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool                      `json:"parallel_tool_calls,omitempty"`
	Temperature       *float64                   `json:"temperature,omitempty"`
	TopP              *float64                   `json:"top_p,omitempty"`
	MaxTokens         *int                       `json:"max_tokens,omitempty"`
	PresencePenalty   *float64                   `json:"presence_penalty,omitempty"`
	FrequencyPenalty  *float64                   `json:"frequency_penalty,omitempty"`
	Stop              []string                   `json:"stop,omitempty"`
	ResponseFormat    *ResponseFormat            `json:"response_format,omitempty"`
	ReasoningEffort   string                     `json:"reasoning_effort,omitempty"`
	Extra             map[string]json.RawMessage `json:"extra,omitempty"`
}

// cacheKey hashes req for model ref (sha256, hex). A stream and a
// non-stream call are separate entries: each replays in its own shape.
func cacheKey(ref ModelRef, req *ChatRequest, stream bool) (string, error) {
	b, err := json.Marshal(cacheKeyInput{
		V: cacheKeyVersion, Model: ref.String(), Stream: stream,
		Messages: req.Messages, Tools: req.Tools, ToolChoice: req.ToolChoice, ParallelToolCalls: req.ParallelToolCalls,
		Temperature: req.Temperature, TopP: req.TopP, MaxTokens: req.MaxTokens,
		PresencePenalty: req.PresencePenalty, FrequencyPenalty: req.FrequencyPenalty, Stop: req.Stop,
		ResponseFormat: req.ResponseFormat, ReasoningEffort: req.ReasoningEffort, Extra: req.Extra,
	})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// cacheable reports whether a call may be answered from or stored in the
// cache: no tool results in its messages (a run whose tools were called)
// and a temperature of 0 or unset unless allowTemperature.
func cacheable(req *ChatRequest, allowTemperature bool) bool {
	if req.Temperature != nil && *req.Temperature != 0 && !allowTemperature {
		return false
	}
	for i := range req.Messages {
		if req.Messages[i].Role == "tool" || len(req.Messages[i].ToolCalls) > 0 {
			return false
		}
	}
	return true
}

// answerCallsTools reports whether a response asks for tool calls (it is
// then not stored: the run goes on with the tools' results).
func answerCallsTools(resp *ChatResponse) bool {
	for i := range resp.Choices {
		if len(resp.Choices[i].Message.ToolCalls) > 0 || resp.Choices[i].FinishReason == "tool_calls" {
			return true
		}
	}
	return false
}
