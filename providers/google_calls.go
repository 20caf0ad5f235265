package providers

import (
	"encoding/json"
	"fmt"

	"github.com/hearth-dev/hearth/engine"
)

// gemSkipSignature is the value Google documents for function calls whose
// signature Hearth does not have (history written by another model or
// provider, or a client that dropped extra_content): it tells Gemini 3 to
// skip validation instead of rejecting the turn
// (https://ai.google.dev/gemini-api/docs/thought-signatures#faqs).
const gemSkipSignature = "skip_thought_signature_validator"

// gemExtra is the "google" entry of a tool call's extra_content.
type gemExtra struct {
	ThoughtSignature string `json:"thought_signature"`
}

// gemToolCall turns a functionCall part into a tool call, keeping its
// thought signature for the next turn.
func gemToolCall(p gemPart) engine.ToolCall {
	tc := engine.ToolCall{ID: gemCallID(p.FunctionCall), Type: "function",
		Function: engine.FunctionCall{Name: p.FunctionCall.Name, Arguments: gemArgs(p.FunctionCall)}}
	if p.ThoughtSignature != "" {
		tc.ExtraContent = extraWith(nil, "google", gemExtra{ThoughtSignature: p.ThoughtSignature})
	}
	return tc
}

// gemSignature is the thoughtSignature to send with a functionCall part:
// the one Gemini gave, else the documented skip value when the model
// requires one here (the first call of each step; parallel calls after
// the first carry none).
func gemSignature(tc engine.ToolCall, required bool) string {
	var x gemExtra
	if extraGet(tc.ExtraContent, "google", &x) && x.ThoughtSignature != "" {
		return x.ThoughtSignature
	}
	if required {
		return gemSkipSignature
	}
	return ""
}

// gemParameters is the parametersJsonSchema of a tool: its JSON Schema as
// given, or nothing for a tool without parameters. The OpenAPI-subset
// "parameters" field rejects an OBJECT without properties and has no
// $ref/$defs; parametersJsonSchema takes full JSON Schema
// (https://ai.google.dev/api/caching#FunctionDeclaration) and, for a
// function with no parameters, "can be left unset".
func gemParameters(schema json.RawMessage) json.RawMessage {
	if len(schema) == 0 || string(schema) == "null" {
		return nil
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil {
		return schema
	}
	props := s["properties"]
	empty := len(props) == 0 || string(props) == "{}" || string(props) == "null"
	for _, k := range []string{"$ref", "anyOf", "oneOf", "allOf"} {
		if _, ok := s[k]; ok {
			empty = false
		}
	}
	if empty {
		return nil
	}
	return schema
}

// gemFinishError reports the finish reasons that end a turn without an
// answer: a function call Gemini could not produce. Mapping them to "stop"
// would hand the caller an empty answer with nothing to say why
// (https://ai.google.dev/api/generate-content#FinishReason).
func gemFinishError(reason, message string) error {
	var what string
	switch reason {
	case "MALFORMED_FUNCTION_CALL":
		what = "the model generated a malformed function call"
	case "UNEXPECTED_TOOL_CALL":
		what = "the model called a tool although no tool was enabled for this request"
	case "TOO_MANY_TOOL_CALLS":
		what = "the model called too many tools in a row"
	default:
		return nil
	}
	msg := fmt.Sprintf("google: %s (finishReason %s)", what, reason)
	if message != "" {
		msg += ": " + clip(message)
	}
	return &engine.Error{Code: engine.CodeUpstream, Message: msg}
}
