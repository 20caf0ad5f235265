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
	usage := map[string]any{"billed_units": map[string]int{"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens},
		"tokens": map[string]int{"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens}}
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
