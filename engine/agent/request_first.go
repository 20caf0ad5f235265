package agent

import (
	"encoding/json"
	"unsafe"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/jsonfast"
)

// firstStep is the storage of an agent run's first request, kept inside
// agentRun: the chat request, the sampling values its pointers point to,
// and room for the two messages of the common request (instructions and
// a string input). Validating a request is then one allocation instead of
// one for each of them.
type firstStep struct {
	chat                         engine.ChatRequest
	temperature, topP            float64
	presencePenalty, freqPenalty float64
	maxTokens                    int
	msgs                         [2]engine.Message
}

// sampling checks the sampling parameters of r, applies the agent
// defaults, and points the chat request at them.
func (f *firstStep) sampling(r *AgentRunRequest) error {
	var err error
	if f.temperature, err = numberValue("temperature", r.Temperature, 0, 2, AgentDefaultTemperature); err != nil {
		return err
	}
	if f.topP, err = numberValue("top_p", r.TopP, 0, 1, AgentDefaultTopP); err != nil {
		return err
	}
	if f.presencePenalty, err = numberValue("presence_penalty", r.PresencePenalty, -2, 2, 0); err != nil {
		return err
	}
	if f.freqPenalty, err = numberValue("frequency_penalty", r.FrequencyPenalty, -2, 2, 0); err != nil {
		return err
	}
	if f.maxTokens, err = agentMaxTokensValue(r.MaxTokens, r.MaxCompletionTokens); err != nil {
		return err
	}
	c := &f.chat
	c.Temperature, c.TopP, c.PresencePenalty, c.FrequencyPenalty = &f.temperature, &f.topP, &f.presencePenalty, &f.freqPenalty
	c.MaxTokens = &f.maxTokens
	return nil
}

// withInstructions appends the system message of the request's
// instructions to msgs, when there are instructions.
func withInstructions(msgs []engine.Message, instructions *string) []engine.Message {
	if instructions == nil || *instructions == "" {
		return msgs
	}
	return append(msgs, engine.Message{Role: "system", Content: engine.TextContent(*instructions)})
}

// jsonString decodes a JSON string as encoding/json does. A string with
// no escape, no control character and valid UTF-8 is its bytes between
// the quotes; anything else goes through encoding/json (which replaces
// invalid UTF-8 and decodes escapes).
func jsonString(raw json.RawMessage) (string, bool) {
	if body, ok := jsonfast.PlainString(raw); ok {
		return string(body), true
	}
	return unmarshalString(raw)
}

// jsonStringShared is jsonString, except that a plain string shares raw's
// bytes instead of copying them: raw must never be modified afterwards
// (AgentRunRequest.Input documents this for the request's input).
func jsonStringShared(raw json.RawMessage) (string, bool) {
	if body, ok := jsonfast.PlainString(raw); ok {
		if len(body) == 0 {
			return "", true
		}
		return unsafe.String(&body[0], len(body)), true
	}
	return unmarshalString(raw)
}

func unmarshalString(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
