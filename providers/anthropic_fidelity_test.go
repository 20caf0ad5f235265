package providers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

func anthropicModel(t *testing.T, f *fake.Server, model string) engine.ChatModel {
	t.Helper()
	m, err := newRegistry(t, "anthropic", f, &sleeps{}).ChatModel(engine.ModelRef{Provider: "anthropic", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAnthropicSamplingRules(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	cases := []struct {
		model             string
		temperature, topP bool
	}{
		{"claude-opus-4-7", false, false},
		{"claude-opus-4-8", false, false},
		{"claude-opus-5", false, false},
		{"claude-mythos-preview", false, false},
		{"claude-sonnet-4-6", true, false},
		{"claude-sonnet-4-5-20250929", true, false},
		{"claude-3-5-haiku-20241022", true, true},
	}
	for _, c := range cases {
		// A pipe's defaults: temperature 0.7, top_p 1.
		req := &engine.ChatRequest{Model: c.model, APIKey: "k", Messages: []engine.Message{userMsg("hi")}, Temperature: f64(0.7), TopP: f64(1)}
		body := sentBody(t, "anthropic", f, req)
		if _, ok := body["temperature"]; ok != c.temperature {
			t.Errorf("%s: temperature sent=%v, want %v", c.model, ok, c.temperature)
		}
		if _, ok := body["top_p"]; ok != c.topP {
			t.Errorf("%s: top_p sent=%v, want %v", c.model, ok, c.topP)
		}
	}
}

func TestAnthropicReasoningEffort(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	cases := []struct {
		model, effort string
		thinking      map[string]any
		effortSent    string
		maxTokens     float64
	}{
		{"claude-opus-4-7", "medium", map[string]any{"type": "adaptive"}, "medium", 1000},
		{"claude-sonnet-4-6", "low", map[string]any{"type": "adaptive"}, "low", 1000},
		{"claude-opus-4-5", "high", map[string]any{"type": "enabled", "budget_tokens": 24576.0}, "high", 25576},
		{"claude-sonnet-4-5", "low", map[string]any{"type": "enabled", "budget_tokens": 1024.0}, "", 2024},
		{"claude-3-5-haiku-latest", "high", nil, "", 1000},
		{"claude-opus-4-7", "none", nil, "", 1000},
	}
	for _, c := range cases {
		req := &engine.ChatRequest{Model: c.model, APIKey: "k", Messages: []engine.Message{userMsg("hi")},
			Temperature: f64(0.7), MaxTokens: intp(1000), ReasoningEffort: c.effort}
		body := sentBody(t, "anthropic", f, req)
		got, _ := body["thinking"].(map[string]any)
		if b, _ := json.Marshal(got); string(b) != mustJSON(c.thinking) {
			t.Errorf("%s %s: thinking %v, want %v", c.model, c.effort, got, c.thinking)
		}
		oc, _ := body["output_config"].(map[string]any)
		if e, _ := oc["effort"].(string); e != c.effortSent {
			t.Errorf("%s %s: effort %q, want %q", c.model, c.effort, e, c.effortSent)
		}
		if body["max_tokens"] != c.maxTokens {
			t.Errorf("%s %s: max_tokens %v, want %v", c.model, c.effort, body["max_tokens"], c.maxTokens)
		}
		if _, ok := body["temperature"]; ok && c.thinking != nil {
			t.Errorf("%s %s: temperature sent with thinking on", c.model, c.effort)
		}
	}
	// A forced tool keeps thinking off: the API allows only auto/none with it.
	req := &engine.ChatRequest{Model: "claude-opus-4-7", APIKey: "k", Messages: []engine.Message{userMsg("hi")}, ReasoningEffort: "high",
		Tools: []engine.Tool{weatherTool}, ToolChoice: &engine.ToolChoice{Mode: "required"}}
	if body := sentBody(t, "anthropic", f, req); body["thinking"] != nil {
		t.Errorf("thinking with a forced tool: %v", body["thinking"])
	}
}

func mustJSON(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestAnthropicNativeStructuredOutput(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{JSON: `{"city":"Paris"}`})
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	for model, native := range map[string]bool{"claude-sonnet-4-5": true, "claude-opus-4-7": true, "claude-3-7-sonnet-latest": false} {
		req := &engine.ChatRequest{Model: model, APIKey: "k", Messages: []engine.Message{userMsg("capital of France?")}, ReasoningEffort: "low",
			ResponseFormat: &engine.ResponseFormat{Type: "json_schema", JSONSchema: &engine.JSONSchema{Name: "answer", Schema: schema}}}
		m := anthropicModel(t, f, model)
		resp, err := m.Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if engine.Completion(resp) != `{"city":"Paris"}` || resp.Choices[0].FinishReason != "stop" {
			t.Errorf("%s: %q %s", model, engine.Completion(resp), resp.Choices[0].FinishReason)
		}
		body := f.LastRequest().JSON()
		oc, _ := body["output_config"].(map[string]any)
		if (oc["format"] != nil) != native || (body["tools"] != nil) == native {
			t.Errorf("%s: output_config %v tools %v, native=%v", model, oc, body["tools"], native)
		}
		if native && body["thinking"] == nil {
			t.Errorf("%s: native structured output should leave thinking on", model)
		}
	}
}

// TestAnthropicThinkingToolConversation drives tool use with thinking
// through the strict fake: the assistant turn answered by tool results
// must start with the signed thinking block of that turn.
func TestAnthropicThinkingToolConversation(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	for _, model := range []string{"claude-opus-4-7", "claude-sonnet-4-5"} {
		for _, stream := range []bool{false, true} {
			f.Reset()
			f.Enqueue(fake.Reply{Reasoning: "Need the weather.", ToolCalls: []fake.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"loc":"SF"}`}, {ID: "toolu_2", Name: "t2"}}},
				fake.Reply{Text: "It is sunny."})
			m := anthropicModel(t, f, model)
			msgs := []engine.Message{userMsg("Weather in SF?")}
			req := func() *engine.ChatRequest {
				return &engine.ChatRequest{Model: model, APIKey: "k", Messages: msgs, ReasoningEffort: "low", MaxTokens: intp(2000),
					Tools: []engine.Tool{weatherTool, {Type: "function", Function: engine.ToolFunction{Name: "t2"}}}}
			}
			var calls []engine.ToolCall
			if stream {
				s, err := m.ChatStream(context.Background(), req())
				if err != nil {
					t.Fatal(err)
				}
				a, err := collect(t, s)
				if err != nil {
					t.Fatal(err)
				}
				calls = a.calls
			} else {
				resp, err := m.Chat(context.Background(), req())
				if err != nil {
					t.Fatal(err)
				}
				calls = resp.Choices[0].Message.ToolCalls
			}
			if len(calls) != 2 || !strings.Contains(string(calls[0].ExtraContent), `"signature"`) {
				t.Fatalf("%s stream=%v: calls %+v", model, stream, calls)
			}
			msgs = append(msgs, engine.Message{Role: "assistant", ToolCalls: calls},
				engine.Message{Role: "tool", ToolCallID: "toolu_1", Content: engine.TextContent("21C")},
				engine.Message{Role: "tool", ToolCallID: "toolu_2", Content: engine.TextContent("ok")})
			resp, err := m.Chat(context.Background(), req())
			if err != nil {
				t.Fatalf("%s stream=%v: second step: %v", model, stream, err)
			}
			if engine.Completion(resp) != "It is sunny." {
				t.Errorf("answer %q", engine.Completion(resp))
			}
		}
	}
}

func TestAnthropicServerToolBlocks(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "Found it.", ServerTool: true})
	m := anthropicModel(t, f, "claude-sonnet-4-5")
	req := &engine.ChatRequest{Model: "claude-sonnet-4-5", APIKey: "k", Messages: []engine.Message{userMsg("search")}}
	resp, err := m.Chat(context.Background(), req)
	if err != nil || engine.Completion(resp) != "Found it." {
		t.Fatalf("server tool result with array content: %v %v", resp, err)
	}
	s, err := m.ChatStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := collect(t, s); err != nil || a.text != "Found it." {
		t.Fatalf("stream: %q %v", a.text, err)
	}
}

// TestGeminiThreadMovesToAnthropic replays two Gemini tool turns (whose
// calls carry no id of their own) to Claude, which rejects repeated ids.
func TestGeminiThreadMovesToAnthropic(t *testing.T) {
	g := fake.NewGemini()
	defer g.Close()
	g.SetDefault(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"loc":"SF"}`}}})
	gm := geminiModel(t, g, "gemini-2.5-flash-lite", nil)
	msgs := []engine.Message{userMsg("Weather?")}
	for i := 0; i < 2; i++ {
		resp, err := gm.Chat(context.Background(), &engine.ChatRequest{Model: "gemini-2.5-flash-lite", Messages: msgs, Tools: []engine.Tool{weatherTool}})
		if err != nil {
			t.Fatal(err)
		}
		c := resp.Choices[0].Message.ToolCalls
		msgs = append(msgs, engine.Message{Role: "assistant", ToolCalls: c}, engine.Message{Role: "tool", ToolCallID: c[0].ID, Content: engine.TextContent("21C")})
	}
	a := fake.NewAnthropic()
	defer a.Close()
	a.SetDefault(fake.Reply{Text: "Sunny."})
	if _, err := anthropicModel(t, a, "claude-sonnet-4-5").Chat(context.Background(),
		&engine.ChatRequest{Model: "claude-sonnet-4-5", APIKey: "k", Messages: msgs, Tools: []engine.Tool{weatherTool}}); err != nil {
		t.Fatalf("thread from Gemini rejected by Claude: %v", err)
	}
}
