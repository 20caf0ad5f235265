package providers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestMultiTurnToolConversation drives a three-turn conversation with
// tool calls through each strict fake, with every canonical parameter set
// and current (reasoning) models: the model calls two tools, the results
// go back (streamed answer), and a follow-up question gets a final
// answer. max_tokens is the pipe default, which thinking models must not
// spend on thinking alone. A parameter the model rejects, a tool result that answers no
// call, or a call left unanswered makes the fake answer 400.
func TestMultiTurnToolConversation(t *testing.T) {
	cases := []struct {
		provider, model string
		newFake         func() *fake.Server
		tools           bool
	}{
		{"openai", "o3", fake.NewOpenAI, true},
		{"openai", "o4-mini", fake.NewOpenAI, true},
		{"openai", "o3-mini", fake.NewOpenAI, true},
		{"openai", "gpt-5-mini", fake.NewOpenAI, true},
		{"openai", "gpt-5.1", fake.NewOpenAI, true},
		{"openai", "gpt-5.4", fake.NewOpenAI, true},
		{"openai", "gpt-5.5", fake.NewOpenAI, true},
		{"openai", "gpt-5.6-terra", fake.NewOpenAI, true},
		{"openai", "gpt-6-sol", fake.NewOpenAI, true},
		{"openai", "gpt-6-luna", fake.NewOpenAI, true},
		{"openai", "gpt-4.1", fake.NewOpenAI, true},
		{"xai", "grok-4", func() *fake.Server { return fake.NewOpenAIHost("xai") }, true},
		{"xai", "grok-4.3", func() *fake.Server { return fake.NewOpenAIHost("xai") }, true},
		{"xai", "grok-4.5", func() *fake.Server { return fake.NewOpenAIHost("xai") }, true},
		{"xai", "grok-build-0.1", func() *fake.Server { return fake.NewOpenAIHost("xai") }, true},
		{"xai", "grok-4-1-fast-non-reasoning", func() *fake.Server { return fake.NewOpenAIHost("xai") }, true},
		{"groq", "openai/gpt-oss-120b", func() *fake.Server { return fake.NewOpenAIHost("groq") }, true},
		{"mistral", "mistral-large-latest", func() *fake.Server { return fake.NewOpenAIHost("mistral") }, true},
		{"mistral", "magistral-medium-latest", func() *fake.Server { return fake.NewOpenAIHost("mistral") }, true},
		{"mistral", "mistral-medium-3-5", func() *fake.Server { return fake.NewOpenAIHost("mistral") }, true},
		{"google", "gemini-3-flash-preview", fake.NewGemini, true},
		{"google", "gemini-3.1-pro-preview", fake.NewGemini, true},
		{"google", "gemini-3.8-flash", fake.NewGemini, true},
		{"google", "gemini-3.5-flash", fake.NewGemini, true},
		{"google", "gemini-3.1-flash-lite", fake.NewGemini, true},
		{"deepseek", "deepseek-v4-flash", fake.NewDeepSeek, true},
		{"deepseek", "deepseek-v4-pro", fake.NewDeepSeek, true},
		{"deepseek", "deepseek-flash", fake.NewDeepSeek, true},
		{"perplexity", "sonar-pro", func() *fake.Server { return fake.NewOpenAIHost("perplexity") }, false},
		{"cohere", "command-a-03-2025", fake.NewCohere, true},
		{"anthropic", "claude-haiku-4-5", fake.NewAnthropic, true},
		{"anthropic", "claude-sonnet-4-6", fake.NewAnthropic, true},
		{"anthropic", "claude-opus-4-7", fake.NewAnthropic, true},
		{"anthropic", "claude-opus-5", fake.NewAnthropic, true},
		{"anthropic", "claude-sonnet-5", fake.NewAnthropic, true},
		{"anthropic", "claude-opus-5-5", fake.NewAnthropic, true},
		{"anthropic", "claude-sonnet-5-5", fake.NewAnthropic, true},
		{"anthropic", "claude-haiku-5-5", fake.NewAnthropic, true},
		{"anthropic", "claude-fable-5-1", fake.NewAnthropic, true},
	}
	for _, c := range cases {
		t.Run(c.provider+"/"+c.model, func(t *testing.T) {
			f := c.newFake()
			defer f.Close()
			reg := newRegistry(t, c.provider, f, &sleeps{})
			m, err := reg.ChatModel(engine.ModelRef{Provider: c.provider, Model: c.model})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			req := func(msgs []engine.Message) *engine.ChatRequest {
				r := fullRequest(c.model)
				r.ResponseFormat, r.Extra, r.ReasoningEffort = nil, nil, "none"
				r.MaxTokens = intp(1000) // the pipe default
				if c.provider == "anthropic" {
					// No effort: Claude 5.x thinks by default and spends
					// the pipe's max_tokens on thinking unless Hearth
					// gives thinking room.
					r.ReasoningEffort = ""
				}
				r.ToolChoice = &engine.ToolChoice{Mode: "auto"}
				r.Messages = msgs
				if !c.tools {
					r.Tools, r.ToolChoice, r.ParallelToolCalls = nil, nil, nil
				}
				return r
			}
			msgs := []engine.Message{{Role: "system", Content: engine.TextContent("Be brief.")}, userMsg("Weather in SF?")}

			// Turn 1: the model calls tools (or answers, without tools).
			if c.tools {
				f.Enqueue(fake.Reply{ToolCalls: twoCalls})
			} else {
				f.Enqueue(fake.Reply{Text: "Sunny."})
			}
			resp, err := m.Chat(ctx, req(msgs))
			if err != nil {
				t.Fatalf("turn 1: %v", err)
			}
			got := resp.Choices[0].Message
			asst := engine.Message{Role: "assistant", ToolCalls: got.ToolCalls}
			if got.Content != nil {
				asst.Content = engine.TextContent(*got.Content)
			}
			msgs = append(msgs, asst)
			if c.tools {
				if len(got.ToolCalls) != 2 {
					t.Fatalf("turn 1 tool calls %+v", got.ToolCalls)
				}
				for _, tc := range got.ToolCalls {
					msgs = append(msgs, engine.Message{Role: "tool", ToolCallID: tc.ID, Content: engine.TextContent(`{"result":"` + tc.Function.Name + `"}`)})
				}
			} else {
				msgs = append(msgs, userMsg("And tomorrow?"))
			}

			// Turn 2: the results go back; the answer streams.
			f.Enqueue(fake.Reply{Text: "It is 21C and sunny."})
			s, err := m.ChatStream(ctx, req(msgs))
			if err != nil {
				t.Fatalf("turn 2: %v", err)
			}
			a, err := collect(t, s)
			if err != nil || a.text != "It is 21C and sunny." {
				t.Fatalf("turn 2: %q %v", a.text, err)
			}
			sent := string(f.LastRequest().Body)
			for _, tc := range got.ToolCalls {
				if !strings.Contains(sent, tc.ID) {
					t.Errorf("turn 2 did not send the result of %s: %s", tc.ID, sent)
				}
			}
			msgs = append(msgs, engine.Message{Role: "assistant", Content: engine.TextContent(a.text)}, userMsg("Thanks. Tomorrow?"))

			// Turn 3: a follow-up on the whole history.
			f.Enqueue(fake.Reply{Text: "Rain."})
			resp, err = m.Chat(ctx, req(msgs))
			if err != nil || *resp.Choices[0].Message.Content != "Rain." {
				t.Fatalf("turn 3: %v", err)
			}
			if f.Count() != 3 {
				t.Errorf("%d upstream requests, want 3", f.Count())
			}
		})
	}
}
