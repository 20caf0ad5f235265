package fake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// NewCohere starts a fake Cohere v2 API: /chat (plain and streamed with
// message-start, content-start/delta/end, tool-plan-delta,
// tool-call-start/delta/end, message-end) and /embed. BaseURL ends in /v2.
func NewCohere() *Server { return newServer("cohere", "/v2", handleCohere) }

// CohereTemplateTokens is how many more input tokens the fake reports in
// usage.tokens than in usage.billed_units, as Cohere does for the prompt
// template it adds.
const CohereTemplateTokens = 170

// cohereChatFields are the fields of a v2 /chat body
// (https://docs.cohere.com/reference/chat); Cohere refuses others.
var cohereChatFields = map[string]bool{"model": true, "messages": true, "tools": true, "strict_tools": true, "documents": true,
	"citation_options": true, "response_format": true, "safety_mode": true, "max_tokens": true, "stop_sequences": true,
	"temperature": true, "seed": true, "frequency_penalty": true, "presence_penalty": true, "k": true, "p": true,
	"logprobs": true, "tool_choice": true, "thinking": true, "stream": true, "priority": true}

// cohereNested are the fields inside a v2 /chat body's messages, tools
// and response format (https://docs.cohere.com/reference/chat): tool
// calls are {id, type, function{name, arguments}} and tools {type,
// function{name, description, parameters}}; Cohere refuses others.
var cohereNested = fields{
	"messages": {"role": free, "tool_call_id": free, "tool_plan": free, "citations": free,
		"content":    {"type": free, "text": free, "image_url": {"url": free, "detail": free}, "document": free, "thinking": free},
		"tool_calls": {"id": free, "type": free, "function": {"name": free, "arguments": free}}},
	"tools":           {"type": free, "function": {"name": free, "description": free, "parameters": free}},
	"response_format": {"type": free, "json_schema": free},
	"thinking":        {"type": free, "token_budget": free},
}

// checkCohereChat returns why Cohere would refuse a /chat body, or "".
func checkCohereChat(body []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return "body is not valid JSON"
	}
	for k := range m {
		if !cohereChatFields[k] {
			return "unknown field: parameter " + k + " is not a valid field"
		}
		if sub := cohereNested[k]; sub != nil {
			if p := sub.unknownField(k, m[k]); p != "" {
				return "unknown field: parameter " + p + " is not a valid field"
			}
		}
	}
	for _, k := range []string{"frequency_penalty", "presence_penalty"} {
		var v float64
		if raw, ok := m[k]; ok && (json.Unmarshal(raw, &v) != nil || v < 0 || v > 1) {
			return k + " must be between 0 and 1"
		}
	}
	if raw, ok := m["p"]; ok {
		var v float64
		if json.Unmarshal(raw, &v) != nil || v < 0.01 || v > 0.99 {
			return "p must be between 0.01 and 0.99"
		}
	}
	var msgs []struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	if json.Unmarshal(m["model"], new(string)) != nil || json.Unmarshal(m["messages"], &msgs) != nil || len(msgs) == 0 {
		return "model and messages are required"
	}
	calls := map[string]bool{}
	for _, msg := range msgs {
		for _, c := range msg.ToolCalls {
			calls[c.ID] = true
		}
		if msg.Role == "tool" && !calls[msg.ToolCallID] {
			return "tool message references tool_call_id " + msg.ToolCallID + " that no previous assistant message called"
		}
	}
	return ""
}

type cohReq struct {
	Model          string `json:"model"`
	Stream         bool   `json:"stream"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Texts     []string `json:"texts"`
	InputType string   `json:"input_type"`
}

func handleCohere(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		writeError(w, rep, map[string]any{"id": "fake-error", "message": errorMessage(rep)})
		return
	}
	var req cohReq
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"message": "invalid request: body is not valid JSON"})
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/embed"):
		if req.InputType == "" {
			writeJSON(w, 400, map[string]any{"message": "invalid request: input_type is required"})
			return
		}
		vs := make([][]float32, len(req.Texts))
		for i, t := range req.Texts {
			vs[i] = vector(t, rep.EmbedDims)
		}
		writeJSON(w, 200, map[string]any{"id": "fake-embed", "embeddings": map[string]any{"float": vs}, "texts": req.Texts,
			"meta": map[string]any{"api_version": map[string]string{"version": "2"}}})
		return
	case !strings.HasSuffix(r.URL.Path, "/chat"):
		writeJSON(w, 404, map[string]any{"message": "not found"})
		return
	}
	if msg := checkCohereChat(body); msg != "" {
		status := 400
		if strings.HasPrefix(msg, "unknown field") {
			status = 422
		}
		writeJSON(w, status, map[string]any{"id": "fake-error", "message": "invalid request: " + msg})
		return
	}
	wantJSON := req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object"
	text := rep.text(wantJSON)
	finish := "COMPLETE"
	if len(rep.ToolCalls) > 0 {
		finish = "TOOL_CALL"
	}
	if rep.Finish != "" {
		finish = rep.Finish
	}
	u := rep.usage()
	// tokens also count the prompt template Cohere adds; billed_units is
	// what is charged.
	usage := map[string]any{"billed_units": map[string]int{"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens},
		"tokens": map[string]int{"input_tokens": u.PromptTokens + CohereTemplateTokens, "output_tokens": u.CompletionTokens}}
	if !req.Stream {
		msg := map[string]any{"role": "assistant"}
		if text != "" {
			msg["content"] = []any{map[string]any{"type": "text", "text": text}}
		}
		if len(rep.ToolCalls) > 0 {
			calls := make([]any, len(rep.ToolCalls))
			for i, c := range rep.ToolCalls {
				calls[i] = map[string]any{"id": c.id(i), "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.args()}}
			}
			msg["tool_calls"] = calls
			msg["tool_plan"] = "I will call the tools."
		}
		writeJSON(w, 200, map[string]any{"id": "fake-chat", "finish_reason": finish, "message": msg, "usage": usage})
		return
	}
	out := newSSE(w, r, rep, "\n\n")
	send := func(event string, v map[string]any) bool { v["type"] = event; return out.send(event, v) }
	if !send("message-start", map[string]any{"id": "fake-chat", "delta": map[string]any{"message": map[string]any{"role": "assistant", "content": []any{}, "tool_plan": "", "tool_calls": []any{}, "citations": []any{}}}}) {
		return
	}
	if text != "" {
		if !send("content-start", map[string]any{"index": 0, "delta": map[string]any{"message": map[string]any{"content": map[string]any{"type": "text", "text": ""}}}}) {
			return
		}
		for _, piece := range words(text) {
			if !send("content-delta", map[string]any{"index": 0, "delta": map[string]any{"message": map[string]any{"content": map[string]any{"text": piece}}}}) {
				return
			}
		}
		if !send("content-end", map[string]any{"index": 0}) {
			return
		}
	}
	if len(rep.ToolCalls) > 0 && !send("tool-plan-delta", map[string]any{"delta": map[string]any{"message": map[string]any{"tool_plan": "I will call the tools."}}}) {
		return
	}
	for i, c := range rep.ToolCalls {
		if !send("tool-call-start", map[string]any{"index": i, "delta": map[string]any{"message": map[string]any{"tool_calls": map[string]any{
			"id": c.id(i), "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}}}}) {
			return
		}
		for _, part := range halves(c.args()) {
			if !send("tool-call-delta", map[string]any{"index": i, "delta": map[string]any{"message": map[string]any{"tool_calls": map[string]any{"function": map[string]any{"arguments": part}}}}}) {
				return
			}
		}
		if !send("tool-call-end", map[string]any{"index": i}) {
			return
		}
	}
	if rep.Truncate {
		return
	}
	send("message-end", map[string]any{"delta": map[string]any{"finish_reason": finish, "usage": usage}})
}
