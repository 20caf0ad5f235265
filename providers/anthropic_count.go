package providers

import (
	"context"

	"github.com/hearth-dev/hearth/engine"
)

// CountTokens asks Anthropic's count_tokens endpoint for the input tokens
// of body (a Messages request without max_tokens), sending beta as the
// anthropic-beta header when set. apiKey may be a key pool: its first key
// is used.
func (a *Anthropic) CountTokens(ctx context.Context, apiKey string, body []byte, beta string) (int, error) {
	if keys := SplitKeys(apiKey); len(keys) > 0 {
		apiKey = keys[0]
	}
	call, err := a.c.post(ctx, a.baseURL+"/messages/count_tokens", body, false, a.headers(apiKey, beta))
	if err != nil {
		return 0, err
	}
	var resp struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := decodeResponse("anthropic", call, &resp); err != nil {
		return 0, err
	}
	return resp.InputTokens, nil
}

// CountAnthropicTokens is CountTokens on the configured anthropic provider.
func (r *Registry) CountAnthropicTokens(ctx context.Context, apiKey string, body []byte, beta string) (int, error) {
	a, ok := r.chat["anthropic"].(*Anthropic)
	if !ok {
		return 0, engine.Errorf(engine.CodeUnavailable, "the anthropic provider is not configured")
	}
	return a.CountTokens(ctx, apiKey, body, beta)
}
