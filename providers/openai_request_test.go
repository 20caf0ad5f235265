package providers

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// requestShapes are the chat requests pipes, the agent and the chat
// completions route send: plain text, system and developer turns,
// multimodal parts, tool definitions and calls (with Gemini and DeepSeek
// extra_content), forced and named tool choices, response formats,
// sampling parameters at their pipe defaults and at edge values,
// reasoning efforts, stop sequences, and text that needs escaping.
func requestShapes() []*engine.ChatRequest {
	params := json.RawMessage(`{ "type": "object", "properties": {"q": {"type": "string", "description": "a <query> & more"}}, "required": ["q"] }`)
	calls := []engine.ToolCall{
		{ID: "call_1", Type: "function", Function: engine.FunctionCall{Name: "search", Arguments: `{"q":"go <1.26>"}`}},
		{ID: "call_2", Type: "function", Function: engine.FunctionCall{Name: "time", Arguments: ""},
			ExtraContent: json.RawMessage(`{"google": {"thought_signature": "c2ln"}}`)},
		{ID: "call_3", Type: "function", Function: engine.FunctionCall{Arguments: "{}"},
			ExtraContent: json.RawMessage(`{"deepseek":{"reasoning_content":"think \u2028 <hard>"}}`)},
	}
	msgs := []engine.Message{
		{Role: "system", Content: engine.TextContent("You are helpful.\nAnswer in \"quotes\" & <tags>.")},
		{Role: "developer", Content: engine.TextContent("dev \u2029 note")},
		{Role: "user", Content: engine.TextContent("Hello, caf\u00e9 \U0001F600 \x01 \xff")},
		{Role: "user", Content: engine.Content{Set: true, Parts: []engine.ContentPart{{Type: "text", Text: "look <here> & \u2028 there"},
			{Type: "image_url", ImageURL: &engine.ImageURL{URL: "https://x.test/a.png?a=1&b=2", Detail: "high"}},
			{Type: "image_url", ImageURL: &engine.ImageURL{URL: "data:image/png;base64,AAAA"}}, {Type: "text"},
			{Type: "file", File: &engine.FilePart{FileData: "data:application/pdf;base64,JVBE", Filename: "a <b>.pdf"}},
			{Type: "file", File: &engine.FilePart{Filename: "only-name.pdf"}}, {Type: "file", File: &engine.FilePart{}}}}},
		{Role: "user", Content: engine.Content{Set: true, Parts: []engine.ContentPart{}}},
		{Role: "assistant", ToolCalls: calls},
		{Role: "tool", ToolCallID: "call_1", Name: "search", Content: engine.TextContent(`{"results":[]}`)},
		{Role: "assistant", Content: engine.TextContent("")},
		{Role: "user", Name: "bob", Content: engine.TextContent("again")},
	}
	tools := []engine.Tool{
		{Type: "function", Function: engine.ToolFunction{Name: "search", Description: "Search the web", Parameters: params, Strict: ptr(true)}},
		{Type: "function", Function: engine.ToolFunction{Name: "time"}},
		{Type: "function", Function: engine.ToolFunction{Name: "n", Parameters: json.RawMessage(`{}`), Strict: ptr(false)}},
	}
	schema := &engine.ResponseFormat{Type: "json_schema", JSONSchema: &engine.JSONSchema{Name: "answer", Description: "An <answer>",
		Schema: json.RawMessage("{\n  \"type\": \"object\"\n}"), Strict: ptr(true)}}
	one := func(m ...engine.Message) []engine.Message { return m }
	return []*engine.ChatRequest{
		{Model: "gpt-4o-mini", Messages: one(msgs[2])},
		{Model: "gpt-4o-mini", Messages: msgs[:3], Temperature: ptr(0.7), TopP: ptr(1.0), MaxTokens: ptr(1000),
			PresencePenalty: ptr(1.0), FrequencyPenalty: ptr(1.0), Stop: []string{"\n\n", "</end>"}},
		{Model: "gpt-4o", Messages: msgs, Tools: tools, ToolChoice: &engine.ToolChoice{Mode: "auto"}, ParallelToolCalls: ptr(false)},
		{Model: "gpt-4o", Messages: msgs, Tools: tools, ToolChoice: &engine.ToolChoice{Mode: "required"}},
		{Model: "gpt-4o", Messages: msgs, Tools: tools, ToolChoice: &engine.ToolChoice{Function: "search<&>"}},
		{Model: "gpt-4o", Messages: msgs, Tools: tools, ToolChoice: &engine.ToolChoice{Mode: "invalid"}},
		{Model: "gpt-4o", Messages: one(msgs[2]), ResponseFormat: schema},
		{Model: "gpt-4o", Messages: one(msgs[2]), ResponseFormat: &engine.ResponseFormat{Type: "json_object"}},
		{Model: "gpt-4o", Messages: one(msgs[2]), ResponseFormat: &engine.ResponseFormat{Type: "text"}},
		{Model: "o3-mini", Messages: msgs[:3], ReasoningEffort: "high", MaxTokens: ptr(1000), Temperature: ptr(0.2)},
		{Model: "gpt-5", Messages: msgs[:3], ReasoningEffort: "minimal", MaxTokens: ptr(langbaseDefaultMaxTokens)},
		{Model: "deepseek-reasoner", Messages: msgs, Tools: tools, Temperature: ptr(1e-7), TopP: ptr(1e21)},
		{Model: "m", Messages: nil, Temperature: ptr(math.Copysign(0, -1)), Stop: []string{}},
		{Model: "m", Messages: []engine.Message{}, MaxTokens: ptr(-1), PresencePenalty: ptr(-2.0), FrequencyPenalty: ptr(0.5)},
		{Model: "<model>&", Messages: one(engine.Message{Role: "user"})},
	}
}

// TestEncodeOpenAIRequestRefused: values encoding/json refuses (numbers
// JSON cannot hold, raw JSON that is not valid) fail the call's encoding
// rather than reach the upstream.
func TestEncodeOpenAIRequestRefused(t *testing.T) {
	cases := map[string]func(req *engine.ChatRequest){
		"NaN temperature":  func(req *engine.ChatRequest) { req.Temperature = ptr(math.NaN()) },
		"infinite penalty": func(req *engine.ChatRequest) { req.FrequencyPenalty = ptr(math.Inf(-1)) },
		"invalid parameters": func(req *engine.ChatRequest) {
			req.Tools = slices.Clone(req.Tools)
			req.Tools[0].Function.Parameters = json.RawMessage(`{"a":`)
		},
		"invalid extra": func(req *engine.ChatRequest) { req.Extra = map[string]json.RawMessage{"seed": json.RawMessage(`nope`)} },
	}
	for name, edit := range cases {
		req := *requestShapes()[2]
		edit(&req)
		if b, err := encodeOpenAIChat(hosts["openai"], &req, false); err == nil {
			t.Errorf("%s: encoded as %s", name, b)
		}
	}
}

// BenchmarkEncodeOpenAIChat: the body of a chat call with sampling
// parameters and stop sequences, and of a two-message chat (instructions
// and input), built and encoded.
func BenchmarkEncodeOpenAIChat(b *testing.B) {
	for name, req := range map[string]*engine.ChatRequest{"sampling": requestShapes()[1], "two messages": twoMessages()} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeOpenAIChat(hosts["openai"], req, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// twoMessages is a chat request of instructions and input.
func twoMessages() *engine.ChatRequest {
	return &engine.ChatRequest{Model: "gpt-4o-mini", Messages: []engine.Message{
		{Role: "system", Content: engine.TextContent("You are terse.")}, {Role: "user", Content: engine.TextContent("Say something about foxes.")}}}
}
