package providers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestAnthropicAnswersForeignToolCalls: tool calls made by another
// provider carry no thinking of the Claude model that answers them, and
// with thinking on the API refuses such a request. Claude Opus 5 runs it
// with thinking disabled, Sonnet 4.6 without enabling thinking, both
// keeping the tool blocks; Claude Opus 5.5, which always thinks, gets the
// exchange as text.
func TestAnthropicAnswersForeignToolCalls(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "Sunny."})
	msgs := []engine.Message{userMsg("Weather in SF?"),
		{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_gpt6a", Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: `{"loc":"SF"}`}}}},
		{Role: "tool", ToolCallID: "call_gpt6a", Content: engine.TextContent(`{"sky":"clear"}`)}}
	for _, c := range []struct {
		model    string
		thinking string // the thinking type sent ("" none)
		asText   bool
	}{{"claude-opus-5", "disabled", false}, {"claude-sonnet-4-6", "", false}, {"claude-opus-5-5", "", true}} {
		req := &engine.ChatRequest{Model: c.model, APIKey: "k", Messages: msgs, Tools: []engine.Tool{weatherTool}, ReasoningEffort: "low", MaxTokens: intp(4000)}
		body := sentBody(t, "anthropic", f, req)
		th, _ := body["thinking"].(map[string]any)
		if got, _ := th["type"].(string); got != c.thinking {
			t.Errorf("%s: thinking %v, want %q", c.model, body["thinking"], c.thinking)
		}
		raw, _ := json.Marshal(body["messages"])
		if text := strings.Contains(string(raw), "I called the tool `get_weather` with") && strings.Contains(string(raw), "Result of the tool `get_weather`: "); text != c.asText || strings.Contains(string(raw), "tool_use") == c.asText {
			t.Errorf("%s: messages %s, want the exchange as text: %v", c.model, raw, c.asText)
		}
	}
}
