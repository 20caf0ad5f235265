package fake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// NewDeepSeek starts the OpenAI fake in DeepSeek mode, checked as
// DeepSeek's API checks (https://api-docs.deepseek.com/guides/thinking_mode,
// https://api-docs.deepseek.com/api/create-chat-completion): unknown
// fields at any depth are refused; the retired deepseek-chat and
// deepseek-reasoner are unknown models; requests in thinking mode (the
// default, off with thinking.type "disabled") answer with
// reasoning_content, and an assistant turn with tool calls must carry its
// reasoning_content back: exactly the text this server issued with those
// calls, or "" for calls it did not make; response_format json_object
// needs the word "json" in the prompt. Kind is "openai".
func NewDeepSeek() *Server {
	s := newServer("openai", "/v1", handleDeepSeek)
	s.host = "deepseek"
	return s
}

// dsRetired are the model ids DeepSeek no longer serves.
var dsRetired = map[string]bool{"deepseek-chat": true, "deepseek-reasoner": true}

type dsReq struct {
	Model    string `json:"model"`
	Thinking *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Messages []struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		ReasoningContent *string         `json:"reasoning_content"`
		ToolCalls        []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

// promptSays reports whether any message's content holds word, in any case.
func (r dsReq) promptSays(word string) bool {
	for _, m := range r.Messages {
		if strings.Contains(strings.ToLower(string(m.Content)), word) {
			return true
		}
	}
	return false
}

func (r dsReq) thinking() bool {
	return r.Thinking == nil || r.Thinking.Type != "disabled"
}

// dsError answers DeepSeek's 400.
func dsError(w http.ResponseWriter, msg string) {
	writeJSON(w, 400, map[string]any{"error": map[string]any{"message": msg,
		"type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}})
}

func handleDeepSeek(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		handleOpenAI(s, w, r, body, rep)
		return
	}
	var req dsReq
	if json.Unmarshal(body, &req) != nil {
		handleOpenAI(s, w, r, body, rep)
		return
	}
	if dsRetired[req.Model] || !strings.HasPrefix(req.Model, "deepseek-") {
		dsError(w, "Model Not Exist")
		return
	}
	if req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object" && !req.promptSays("json") {
		dsError(w, "Prompt must contain the word 'json' in some form to use 'response_format' of type 'json_object'.")
		return
	}
	if req.thinking() {
		for _, m := range req.Messages {
			if m.Role != "assistant" || len(m.ToolCalls) == 0 {
				continue
			}
			if m.ReasoningContent == nil {
				dsError(w, "The `reasoning_content` in the thinking mode must be passed back to the API.")
				return
			}
			if t, ok := s.turnOf(m.ToolCalls[0].ID); (ok && *m.ReasoningContent != t.reasoning) || (!ok && *m.ReasoningContent != "" && !s.wasIssued(*m.ReasoningContent)) {
				dsError(w, "The `reasoning_content` of an assistant message with tool calls does not match the one the API returned.")
				return
			}
		}
		if rep.Reasoning == "" {
			rep.Reasoning = "Let me think this through."
		}
		s.issue(rep.Reasoning)
		for i, tc := range rep.ToolCalls {
			if i == 0 {
				s.recordTurn(tc.id(i), toolTurn{model: req.Model, reasoning: rep.Reasoning})
			}
		}
	} else {
		rep.Reasoning = ""
	}
	handleOpenAI(s, w, r, body, rep)
}
