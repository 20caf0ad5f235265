package providers_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestSeedPerProvider: the custom model parameter "seed" goes where each
// provider takes it: generationConfig.seed on Gemini, random_seed on
// Mistral, nowhere on Anthropic and DeepSeek, which have none. The strict
// fakes refuse a top-level seed as the real APIs do (Gemini "Unknown
// name", Mistral and DeepSeek 422).
func TestSeedPerProvider(t *testing.T) {
	cases := []struct {
		provider, model string
		newFake         func() *fake.Server
		check           func(body map[string]any) bool
	}{
		{"google", "gemini-3-flash-preview", fake.NewGemini, func(b map[string]any) bool {
			gc, _ := b["generationConfig"].(map[string]any)
			return gc != nil && gc["seed"] == 7.0
		}},
		{"mistral", "mistral-large-latest", func() *fake.Server { return fake.NewOpenAIHost("mistral") }, func(b map[string]any) bool {
			return b["random_seed"] == 7.0
		}},
		{"deepseek", "deepseek-v4-flash", fake.NewDeepSeek, func(map[string]any) bool { return true }},
		{"anthropic", "claude-sonnet-4-5", fake.NewAnthropic, func(map[string]any) bool { return true }},
	}
	for _, c := range cases {
		t.Run(c.provider, func(t *testing.T) {
			f := c.newFake()
			defer f.Close()
			m, err := newRegistry(t, c.provider, f, &sleeps{}).ChatModel(engine.ModelRef{Provider: c.provider, Model: c.model})
			if err != nil {
				t.Fatal(err)
			}
			req := &engine.ChatRequest{Model: c.model, APIKey: "k", MaxTokens: intp(1000), Messages: []engine.Message{userMsg("hi")},
				Extra: map[string]json.RawMessage{"seed": json.RawMessage(`7`), "top_k": json.RawMessage(`5`)}}
			if c.provider != "anthropic" {
				delete(req.Extra, "top_k")
			}
			if _, err := m.Chat(context.Background(), req); err != nil {
				t.Fatalf("chat with a seed: %v", err)
			}
			body := f.LastRequest().JSON()
			if _, ok := body["seed"]; ok || !c.check(body) {
				t.Errorf("seed not sent as %s takes it: %s", c.provider, f.LastRequest().Body)
			}
			if c.provider == "anthropic" && body["top_k"] != 5.0 {
				t.Errorf("other custom parameters must still be merged: %v", body)
			}
			if len(req.Extra) == 0 || string(req.Extra["seed"]) != "7" {
				t.Errorf("the request's custom parameters were mutated: %v", req.Extra)
			}
		})
	}
}

// TestCohereDropsForeignToolFields: a tool history written by another
// provider carries extra_content, and a strict tool carries "strict";
// Cohere knows neither (422 unknown field), so the calls go without
// extra_content and strictness as Cohere's own strict_tools.
func TestCohereDropsForeignToolFields(t *testing.T) {
	f := fake.NewCohere()
	defer f.Close()
	m, err := newRegistry(t, "cohere", f, &sleeps{}).ChatModel(engine.ModelRef{Provider: "cohere", Model: "command-a-03-2025"})
	if err != nil {
		t.Fatal(err)
	}
	strict := weatherTool
	strict.Function.Strict = boolp(true)
	req := &engine.ChatRequest{Model: "command-a-03-2025", APIKey: "k", Tools: []engine.Tool{strict}, Messages: []engine.Message{
		userMsg("Weather?"),
		{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_Ab3dE5gH9jK1mN2pQ4rS6tU8", Type: "function",
			Function:     engine.FunctionCall{Name: "get_weather", Arguments: `{"loc":"SF"}`},
			ExtraContent: json.RawMessage(`{"google":{"thought_signature":"c2ln"},"deepseek":{"reasoning_content":"r"}}`)}}},
		{Role: "tool", ToolCallID: "call_Ab3dE5gH9jK1mN2pQ4rS6tU8", Content: engine.TextContent("21C")}}}
	for _, stream := range []bool{false, true} {
		var err error
		if stream {
			var s engine.ChatStream
			if s, err = m.ChatStream(context.Background(), req); err == nil {
				_, err = collect(t, s)
			}
		} else {
			_, err = m.Chat(context.Background(), req)
		}
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		body := f.LastRequest().JSON()
		if body["strict_tools"] != true {
			t.Errorf("stream=%v: strict_tools %v, want true", stream, body["strict_tools"])
		}
	}
	if req.Tools[0].Function.Strict == nil || req.Messages[1].ToolCalls[0].ExtraContent == nil {
		t.Error("the request was mutated")
	}
}
