package providers_test

import (
	"context"
	"encoding/json"
	"reflect"
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
	for _, model := range []string{"deepseek-v4-pro", "deepseek-v4-flash"} {
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
	req := &engine.ChatRequest{Model: "deepseek-v4-flash", APIKey: "k", Tools: []engine.Tool{weatherTool}, Messages: []engine.Message{
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

// TestDeepSeekReasoningEffort: V4 models think by default (effort high);
// reasoning_effort "none" switches thinking off with thinking.type
// "disabled" (so the answer has no reasoning), and "low" is sent as low,
// which DeepSeek takes.
func TestDeepSeekReasoningEffort(t *testing.T) {
	f := fake.NewDeepSeek()
	defer f.Close()
	cases := []struct {
		effort, sentEffort, thinking string
	}{
		{"none", "", "disabled"},
		{"low", "low", ""},
		{"medium", "high", ""},
		{"high", "high", ""},
	}
	for _, c := range cases {
		f.Reset()
		f.SetDefault(fake.Reply{Text: "ok", ToolCalls: []fake.ToolCall{{ID: "call_9", Name: "get_weather"}}})
		req := &engine.ChatRequest{Model: "deepseek-v4-flash", APIKey: "k", ReasoningEffort: c.effort, Tools: []engine.Tool{weatherTool},
			Messages: []engine.Message{userMsg("Weather?")}}
		resp := chatOK(t, "deepseek", f, req)
		var body struct {
			ReasoningEffort string `json:"reasoning_effort"`
			Thinking        *struct {
				Type string `json:"type"`
			} `json:"thinking"`
		}
		json.Unmarshal(f.LastRequest().Body, &body)
		thinking := ""
		if body.Thinking != nil {
			thinking = body.Thinking.Type
		}
		if body.ReasoningEffort != c.sentEffort || thinking != c.thinking {
			t.Errorf("effort %s: sent reasoning_effort %q thinking %q, want %q %q", c.effort, body.ReasoningEffort, thinking, c.sentEffort, c.thinking)
		}
		reasoned := strings.Contains(string(resp.Choices[0].Message.ToolCalls[0].ExtraContent), "reasoning_content")
		if reasoned != (c.effort != "none") {
			t.Errorf("effort %s: answer reasoned=%v", c.effort, reasoned)
		}
	}
	// A caller's own thinking parameter wins.
	req := &engine.ChatRequest{Model: "deepseek-v4-flash", APIKey: "k", ReasoningEffort: "none", Messages: []engine.Message{userMsg("hi")},
		Extra: map[string]json.RawMessage{"thinking": json.RawMessage(`{"type":"enabled"}`)}}
	chatOK(t, "deepseek", f, req)
	if got := f.LastRequest().JSON()["thinking"]; !reflect.DeepEqual(got, map[string]any{"type": "enabled"}) {
		t.Errorf("thinking %v, want the caller's", got)
	}
}

// TestDeepSeekJSONSchemaInPrompt: DeepSeek takes json_object but no
// json_schema, so the schema goes into the system prompt instead of being
// lost (and the prompt then names JSON, which json_object mode requires).
func TestDeepSeekJSONSchemaInPrompt(t *testing.T) {
	f := fake.NewDeepSeek()
	defer f.Close()
	f.SetDefault(fake.Reply{JSON: `{"city":"Paris"}`})
	schema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	for _, system := range []bool{true, false} {
		msgs := []engine.Message{userMsg("Capital of France?")}
		if system {
			msgs = append([]engine.Message{{Role: "system", Content: engine.TextContent("Be brief.")}}, msgs...)
		}
		req := &engine.ChatRequest{Model: "deepseek-v4-pro", APIKey: "k", Messages: msgs,
			ResponseFormat: &engine.ResponseFormat{Type: "json_schema", JSONSchema: &engine.JSONSchema{Name: "answer", Schema: json.RawMessage(schema)}}}
		resp := chatOK(t, "deepseek", f, req)
		if engine.Completion(resp) != `{"city":"Paris"}` {
			t.Errorf("answer %q", engine.Completion(resp))
		}
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat map[string]any `json:"response_format"`
		}
		json.Unmarshal(f.LastRequest().Body, &body)
		first := body.Messages[0]
		if first.Role != "system" || !strings.Contains(first.Content, schema) || len(body.Messages) != 2 ||
			(system && !strings.HasPrefix(first.Content, "Be brief.")) {
			t.Errorf("system=%v: messages %+v", system, body.Messages)
		}
		if !reflect.DeepEqual(body.ResponseFormat, map[string]any{"type": "json_object"}) {
			t.Errorf("response_format %v", body.ResponseFormat)
		}
		if len(req.Messages) != len(msgs) || req.Messages[0].Content.String() != msgs[0].Content.String() {
			t.Error("the request was mutated")
		}
	}
}

// chatOK sends req through provider's adapter to f and fails on an error.
func chatOK(t *testing.T, provider string, f *fake.Server, req *engine.ChatRequest) *engine.ChatResponse {
	t.Helper()
	m, err := newRegistry(t, provider, f, &sleeps{}).ChatModel(engine.ModelRef{Provider: provider, Model: req.Model})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
