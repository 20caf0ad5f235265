package providers

import (
	"encoding/json"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// TestAnthropicSystemCacheControl: a system prompt with a cache_control
// breakpoint goes as text blocks (the breakpoint on its block); without
// one it stays a string.
func TestAnthropicSystemCacheControl(t *testing.T) {
	cc := json.RawMessage(`{"type":"ephemeral"}`)
	req := &engine.ChatRequest{Model: "claude-sonnet-4-5", Messages: []engine.Message{
		{Role: "system", Content: engine.Content{Set: true, Parts: []engine.ContentPart{{Type: "text", Text: "a"}, {Type: "text", Text: "b", CacheControl: cc}}}},
		{Role: "user", Content: engine.TextContent("hi"), CacheControl: cc}}}
	body, err := encodeAnthropicRequest(buildAnthropicRequest(req, false), map[string]json.RawMessage{"top_k": json.RawMessage("3")})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		System   json.RawMessage `json:"system"`
		Messages json.RawMessage `json:"messages"`
		TopK     int             `json:"top_k"`
	}
	json.Unmarshal(body, &got)
	if string(got.System) != `[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]` ||
		string(got.Messages) != `[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]` || got.TopK != 3 {
		t.Fatalf("body %s", body)
	}
	req.Messages[0].Content.Parts[1].CacheControl = nil
	body, _ = encodeAnthropicRequest(buildAnthropicRequest(req, false), nil)
	json.Unmarshal(body, &got)
	if string(got.System) != `"a\n\nb"` {
		t.Fatalf("system without breakpoints %s", got.System)
	}
}
