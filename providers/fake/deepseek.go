package fake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// NewDeepSeek starts the OpenAI fake in DeepSeek mode: chat requests in
// thinking mode (the default of current models, always on for
// deepseek-reasoner; off for deepseek-chat or with thinking.type
// "disabled") answer with reasoning_content, and a request whose assistant
// turns with tool calls lack their reasoning_content gets DeepSeek's 400
// (https://api-docs.deepseek.com/guides/thinking_mode). Kind is "openai".
func NewDeepSeek() *Server { return newServer("openai", "/v1", handleDeepSeek) }

type dsReq struct {
	Model    string `json:"model"`
	Thinking *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	Messages []map[string]json.RawMessage `json:"messages"`
}

func (r dsReq) thinking() bool {
	switch {
	case r.Model == "deepseek-reasoner":
		return true
	case r.Thinking != nil:
		return r.Thinking.Type != "disabled"
	}
	return r.Model != "deepseek-chat"
}

func handleDeepSeek(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status < 400 && strings.HasSuffix(r.URL.Path, "/chat/completions") {
		var req dsReq
		if json.Unmarshal(body, &req) == nil && req.thinking() {
			for _, m := range req.Messages {
				_, calls := m["tool_calls"]
				if _, ok := m["reasoning_content"]; calls && string(m["role"]) == `"assistant"` && !ok {
					writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "The `reasoning_content` in the thinking mode must be passed back to the API.",
						"type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}})
					return
				}
			}
			if rep.Reasoning == "" {
				rep.Reasoning = "Let me think this through."
			}
		}
	}
	handleOpenAI(s, w, r, body, rep)
}
