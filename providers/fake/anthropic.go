package fake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// NewAnthropic starts a fake Anthropic Messages API (/v1/messages), plain
// and streamed (message_start, content_block_*, ping, message_delta,
// message_stop). A request forcing a tool (tool_choice {type:"tool"})
// that matches no scripted tool call gets a tool_use of that tool whose
// input is Reply.JSON, as structured output does; output_config.format
// answers Reply.JSON as text. Requests are checked as the real API checks
// them for the model named (anthropic_check.go), unknown fields included
// (anthropic_strict.go); Claude 5.x thinks by default. With thinking on,
// the answer starts with a thinking block signed for its model, which must
// come back before the tool calls it preceded (on the 5.5-era models: only
// to that model, in its original place), and thinking spends output tokens
// first: a max_tokens it exhausts leaves an empty answer cut at max_tokens.
// /v1/messages/count_tokens answers too (countAnthropicTokens). BaseURL
// ends in /v1.
func NewAnthropic() *Server { return newServer("anthropic", "/v1", handleAnthropic) }

type antReq struct {
	Model         string   `json:"model"`
	Stream        bool     `json:"stream"`
	StopSequences []string `json:"stop_sequences"`
	ToolChoice    *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
	OutputConfig *struct {
		Format json.RawMessage `json:"format"`
	} `json:"output_config"`
}

func handleAnthropic(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
			404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}[rep.Status]
		if typ == "" {
			typ = "api_error"
		}
		writeError(w, rep, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": errorMessage(rep)}})
		return
	}
	if strings.HasSuffix(r.URL.Path, "/messages/count_tokens") {
		countAnthropicTokens(w, body)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/messages") {
		writeJSON(w, 404, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "Not found"}})
		return
	}
	var req antReq
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "invalid JSON"}})
		return
	}
	if msg := s.checkAnthropic(body); msg != "" {
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
		return
	}
	var check antCheckReq
	json.Unmarshal(body, &check)
	calls := rep.ToolCalls
	text := rep.text(req.OutputConfig != nil && len(req.OutputConfig.Format) > 0)
	if tc := req.ToolChoice; tc != nil && tc.Type == "tool" && len(calls) == 0 {
		calls = []ToolCall{{ID: "toolu_fake_json", Name: tc.Name, Arguments: rep.text(true)}}
		text = ""
	}
	stop := "end_turn"
	if len(calls) > 0 {
		stop = "tool_use"
	}
	u := rep.usage()
	output := u.CompletionTokens
	thinking := check.thinks()
	var content []map[string]any
	if thinking {
		// Thinking spends output tokens first: a max_tokens it exhausts
		// leaves an empty, cut answer.
		spent := antThinkingTokens(check)
		output += spent
		if *check.MaxTokens <= spent {
			calls, text, stop, output = nil, "", "max_tokens", *check.MaxTokens
		}
		content = append(content, s.antThinkingBlock(req.Model, rep, 0))
	}
	if rep.ServerTool {
		content = append(content, antServerTool()...)
	}
	if text != "" {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	for i, c := range calls {
		if thinking && rep.Interleaved && i > 0 {
			content = append(content, s.antThinkingBlock(req.Model, rep, i))
		}
		content = append(content, map[string]any{"type": "tool_use", "id": antID(c, i), "name": c.Name, "input": json.RawMessage(c.args())})
	}
	if len(calls) > 0 {
		s.recordTurn(antID(calls[0], 0), toolTurn{model: req.Model, layout: antLayout(content)})
	}
	if rep.Finish != "" {
		stop = rep.Finish
	}
	// A stop_sequence finish names the request's first stop sequence.
	var stopSeq any
	if stop == "stop_sequence" && len(req.StopSequences) > 0 {
		stopSeq = req.StopSequences[0]
	}
	usage := map[string]any{"input_tokens": u.PromptTokens, "output_tokens": output,
		"cache_creation_input_tokens": u.CacheCreationTokens, "cache_read_input_tokens": u.CacheReadTokens,
		"cache_creation": antCacheCreation(u)}
	if !req.Stream {
		writeJSON(w, 200, map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": stopSeq, "usage": usage})
		return
	}
	out := newSSE(w, r, rep, "\n\n")
	send := func(event string, v map[string]any) bool { v["type"] = event; return out.send(event, v) }
	start := map[string]any{"input_tokens": usage["input_tokens"], "output_tokens": 1,
		"cache_creation_input_tokens": u.CacheCreationTokens, "cache_read_input_tokens": u.CacheReadTokens,
		"cache_creation": antCacheCreation(u)}
	if !send("message_start", map[string]any{"message": map[string]any{"id": "msg_fake", "type": "message", "role": "assistant",
		"model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": start}}) {
		return
	}
	for idx, b := range content {
		if !antStreamBlock(send, idx, b) {
			return
		}
	}
	if rep.Truncate {
		return
	}
	if !send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": stopSeq},
		"usage": map[string]int{"output_tokens": output}}) {
		return
	}
	send("message_stop", map[string]any{})
}

// antThinkingTokens is what thinking spends at the request's effort (the
// default effort is high).
func antThinkingTokens(r antCheckReq) int {
	switch r.effort() {
	case "low":
		return 200
	case "medium":
		return 600
	}
	return 1200
}

// antThinkingBlock is a signed thinking block of model. Models that tie
// thinking to their model answer with the thinking text omitted, as their
// default display does; the signature names the model.
func (s *Server) antThinkingBlock(model string, rep Reply, i int) map[string]any {
	reasoning := rep.Reasoning
	if reasoning == "" {
		reasoning = "Let me think about this."
	}
	sig := s.issueFor(fmt.Sprintf("sig-%d-%d-%s-%s", s.n.Load(), i, base64.RawURLEncoding.EncodeToString([]byte(model)),
		base64.StdEncoding.EncodeToString([]byte(reasoning))), model)
	if _, _, bound := claudeEra(model); bound {
		reasoning = ""
	}
	return map[string]any{"type": "thinking", "thinking": reasoning, "signature": sig}
}

// antLayout is the layout of an answer's content (see toolTurn).
func antLayout(content []map[string]any) []string {
	var out []string
	for _, b := range content {
		switch b["type"] {
		case "thinking":
			out = append(out, "thinking:"+b["signature"].(string))
		case "text":
			out = append(out, "text")
		case "tool_use":
			out = append(out, "tool_use:"+b["id"].(string))
		}
	}
	return out
}

// antStreamBlock sends one content block as stream events.
func antStreamBlock(send func(string, map[string]any) bool, idx int, b map[string]any) bool {
	switch b["type"] {
	case "thinking":
		return send("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}}) &&
			send("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "thinking_delta", "thinking": b["thinking"]}}) &&
			send("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "signature_delta", "signature": b["signature"]}}) &&
			send("content_block_stop", map[string]any{"index": idx})
	case "text":
		if !send("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "text", "text": ""}}) ||
			!send("ping", map[string]any{}) {
			return false
		}
		for _, piece := range words(b["text"].(string)) {
			if !send("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "text_delta", "text": piece}}) {
				return false
			}
		}
	case "tool_use":
		if !send("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}}) {
			return false
		}
		for _, part := range halves(string(b["input"].(json.RawMessage))) {
			if !send("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}}) {
				return false
			}
		}
	default:
		if !send("content_block_start", map[string]any{"index": idx, "content_block": b}) {
			return false
		}
	}
	return send("content_block_stop", map[string]any{"index": idx})
}

// antServerTool is a server tool's use and result, as web search sends
// them: the result's content is an array of blocks.
func antServerTool() []map[string]any {
	return []map[string]any{
		map[string]any{"type": "server_tool_use", "id": "srvtoolu_fake", "name": "web_search", "input": map[string]any{"query": "weather"}},
		map[string]any{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_fake", "content": []any{
			map[string]any{"type": "web_search_result", "url": "https://example.com/w", "title": "Weather", "encrypted_content": "ZmFrZQ==", "page_age": nil}}},
	}
}

func antID(c ToolCall, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return "toolu_fake_" + string(rune('a'+i))
}

// countAnthropicTokens answers count_tokens as the real API does in shape:
// a model and messages are required, max_tokens is refused (the endpoint
// takes no extra fields), and input_tokens is the body's length in bytes,
// so a test can tell the fake's count from an estimate.
func countAnthropicTokens(w http.ResponseWriter, body []byte) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "invalid JSON"}})
		return
	}
	for _, k := range []string{"model", "messages"} {
		if _, ok := req[k]; !ok {
			writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": k + ": Field required"}})
			return
		}
	}
	if _, ok := req["max_tokens"]; ok {
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "max_tokens: Extra inputs are not permitted"}})
		return
	}
	writeJSON(w, 200, map[string]any{"input_tokens": len(body)})
}

// antCacheCreation is the usage's cache_creation object: the cache writes
// split by lifetime, as the Messages API reports them.
func antCacheCreation(u Usage) map[string]int {
	return map[string]int{"ephemeral_5m_input_tokens": u.CacheCreationTokens - u.CacheCreation1hTokens,
		"ephemeral_1h_input_tokens": u.CacheCreation1hTokens}
}
