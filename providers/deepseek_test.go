package providers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestDeepSeekReasoningEcho drives a tool conversation through the fake in
// DeepSeek mode: thinking-mode turns with tool calls must get their
// reasoning_content back on every later request.
func TestDeepSeekReasoningEcho(t *testing.T) {
	f := fake.NewDeepSeek()
	defer f.Close()
	for _, model := range []string{"deepseek-reasoner", "deepseek-v4-flash"} {
		for _, stream := range []bool{false, true} {
			f.Reset()
			f.Enqueue(fake.Reply{Reasoning: "I should call the weather tool.", ToolCalls: []fake.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"loc":"SF"}`}, {ID: "call_2", Name: "t2"}}},
				fake.Reply{Text: "It is sunny."})
			m, err := newRegistry(t, "deepseek", f, &sleeps{}).ChatModel(engine.ModelRef{Provider: "deepseek", Model: model})
			if err != nil {
				t.Fatal(err)
			}
			calls := toolTurn(t, m, model, stream)
			if !strings.Contains(string(calls[0].ExtraContent), "I should call the weather tool.") {
				t.Errorf("%s stream=%v: reasoning not kept: %s", model, stream, calls[0].ExtraContent)
			}
			var body struct {
				Messages []map[string]json.RawMessage `json:"messages"`
			}
			json.Unmarshal(f.LastRequest().Body, &body)
			am := body.Messages[1]
			if string(am["reasoning_content"]) != `"I should call the weather tool."` || strings.Contains(string(am["tool_calls"]), "extra_content") {
				t.Errorf("%s stream=%v: assistant turn sent as %v", model, stream, am)
			}
		}
	}
}

func TestDeepSeekHistoryFromOtherProvider(t *testing.T) {
	f := fake.NewDeepSeek()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	req := &engine.ChatRequest{Model: "deepseek-reasoner", APIKey: "k", Tools: []engine.Tool{weatherTool}, Messages: []engine.Message{
		userMsg("Weather?"),
		{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "toolu_1", Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: `{}`},
			ExtraContent: json.RawMessage(`{"google":{"thought_signature":"x"}}`)}}},
		{Role: "tool", ToolCallID: "toolu_1", Content: engine.TextContent("21C")}}}
	body := sentBody(t, "deepseek", f, req)
	am := body["messages"].([]any)[1].(map[string]any)
	if am["reasoning_content"] != "" {
		t.Errorf("reasoning_content %v, want present and empty", am["reasoning_content"])
	}
	// Other OpenAI-wire hosts get neither extra_content nor reasoning_content.
	o := fake.NewOpenAI()
	defer o.Close()
	req.Model = "gpt-4o"
	raw, _ := json.Marshal(sentBody(t, "openai", o, req))
	if strings.Contains(string(raw), "extra_content") || strings.Contains(string(raw), "reasoning_content") {
		t.Errorf("openai body %s", raw)
	}
}
