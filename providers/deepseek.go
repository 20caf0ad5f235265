package providers

import (
	"encoding/json"
	"strings"

	"github.com/hearth-dev/hearth/engine"
)

// thinkingDisabled is DeepSeek's switch that turns thinking mode off
// (https://api-docs.deepseek.com/guides/thinking_mode).
var thinkingDisabled = json.RawMessage(`{"type":"disabled"}`)

// hostAdditions are body fields the model's rule adds beyond the OpenAI
// request: {"thinking":{"type":"disabled"}} for reasoning_effort "none"
// on models that think unless told not to. A caller's own custom model
// parameter of the same name wins (hostExtra).
func hostAdditions(h *host, req *engine.ChatRequest) map[string]json.RawMessage {
	if !strings.EqualFold(req.ReasoningEffort, "none") {
		return nil
	}
	if r := h.rule(req.Model); r != nil && r.noneDisablesThinking {
		return map[string]json.RawMessage{"thinking": thinkingDisabled}
	}
	return nil
}

// schemaPrompt is the instruction that carries a json_schema response
// format to a host that only takes json_object: the schema goes into the
// system prompt, since the downgraded request no longer names it (and
// DeepSeek's JSON mode needs the prompt to ask for JSON anyway,
// https://api-docs.deepseek.com/guides/json_mode).
func schemaPrompt(rf *engine.ResponseFormat) string {
	var b strings.Builder
	b.WriteString("Answer with one JSON object")
	if s := rf.JSONSchema; s != nil && len(s.Schema) > 0 && string(s.Schema) != "null" {
		b.WriteString(" that matches this JSON Schema")
		if s.Name != "" {
			b.WriteString(" (" + s.Name + ")")
		}
		if s.Description != "" {
			b.WriteString(", described as: " + s.Description)
		}
		b.WriteString(":\n")
		b.Write(s.Schema)
	} else {
		b.WriteString(" (json).")
	}
	return b.String()
}

// withSchemaPrompt returns msgs with the json_schema instruction added to
// the leading system message, or in a new one before the conversation.
// msgs is not changed.
func withSchemaPrompt(msgs []engine.Message, rf *engine.ResponseFormat) []engine.Message {
	text := schemaPrompt(rf)
	out := make([]engine.Message, 0, len(msgs)+1)
	if len(msgs) > 0 && msgs[0].Role == "system" && msgs[0].Content.Parts == nil {
		first := msgs[0]
		first.Content = engine.TextContent(first.Content.Text + "\n\n" + text)
		return append(append(out, first), msgs[1:]...)
	}
	out = append(out, engine.Message{Role: "system", Content: engine.TextContent(text)})
	return append(out, msgs...)
}
