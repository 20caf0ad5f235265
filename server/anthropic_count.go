package server

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// countTokensResponse is the answer of POST /anthropic/v1/messages/count_tokens.
type countTokensResponse struct {
	InputTokens int `json:"input_tokens"`
}

// countFields are the request fields Anthropic's count_tokens takes.
var countFields = []string{"messages", "system", "tools", "tool_choice", "thinking", "mcp_servers", "context_management"}

// imageTokens is the estimate of one image: Anthropic's largest images
// cost about 1,600 tokens (width × height / 750).
const imageTokens = 1600

// handleCountTokens serves POST /anthropic/v1/messages/count_tokens: a
// Claude model's count comes from Anthropic (the request passed on with
// the model's own id, anthropic-beta forwarded); any other model's is
// estimated from the text (about four characters a token, 1,600 tokens
// an image). The lb-token-count header says which.
func (s *Server) handleCountTokens(c echo.Context) error {
	buf, err := readPooledBody(c)
	if err != nil {
		return err
	}
	raw := bytes.Clone(buf.Bytes())
	releaseBody(buf)
	var b messagesRequest
	if err := decodeBytes(raw, &b); err != nil {
		return err
	}
	if b.MaxTokens == nil {
		one := 1.0
		b.MaxTokens = &one
	}
	target, err := s.messagesTarget(b.Model)
	if err != nil {
		return err
	}
	chat, _, err := b.chat()
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if target.Pipe == "" {
		if err := engine.ScopeOf(ctx).CheckModels(target.Ref); err != nil {
			return err
		}
	}
	if target.Pipe != "" || target.Ref.Provider != "anthropic" || s.deps.CountAnthropicTokens == nil {
		setHeader(c.Response().Header(), HeaderTokenCount, "estimate")
		return c.JSON(http.StatusOK, countTokensResponse{InputTokens: estimateTokens(chat)})
	}
	who := principal(c)
	if !who.IsOwnerKey() {
		return engine.Errorf(engine.CodeForbidden, "a pipe key runs its own pipe only: count tokens for pipe:<name> (or use a user or org key for provider models)")
	}
	key, err := s.deps.Keysets.Resolve(ctx, "anthropic", llmKey(c.Request().Header), "", who.Owner)
	if err != nil {
		return err
	}
	body, err := countBody(raw, target.Ref.Model)
	if err != nil {
		return err
	}
	n, err := s.deps.CountAnthropicTokens(ctx, key, body, c.Request().Header.Get("anthropic-beta"))
	if err != nil {
		return err
	}
	setHeader(c.Response().Header(), HeaderTokenCount, "anthropic")
	return c.JSON(http.StatusOK, countTokensResponse{InputTokens: n})
}

// countBody is the count_tokens body for Anthropic: the fields it takes,
// with model set to the provider's own id.
func countBody(raw []byte, model string) ([]byte, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, engine.FieldError("body", "must be a JSON object")
	}
	out := map[string]json.RawMessage{}
	for _, k := range countFields {
		if v, ok := in[k]; ok {
			out[k] = v
		}
	}
	out["model"], _ = json.Marshal(model)
	return json.Marshal(out)
}

// estimateTokens estimates the input tokens of chat: a quarter of its
// characters (text, tool calls and tool definitions), three tokens of
// framing per message, and imageTokens per image.
func estimateTokens(chat *engine.ChatRequest) int {
	chars, images := 0, 0
	for _, m := range chat.Messages {
		chars += 12
		if m.Content.Parts == nil {
			chars += len(m.Content.Text)
		}
		for _, p := range m.Content.Parts {
			if p.Type == "image_url" {
				images++
			}
			chars += len(p.Text)
		}
		for _, tc := range m.ToolCalls {
			chars += len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	for _, t := range chat.Tools {
		chars += len(t.Function.Name) + len(t.Function.Description) + len(t.Function.Parameters)
	}
	return (chars+3)/4 + images*imageTokens
}
