package providers_test

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestThreadMovesBetweenProvidersMidToolLoop runs one tool conversation
// through five providers' strict fakes in turn, each step answering the
// previous provider's tool calls: Gemini 3 (parallel calls with ids and a
// thought signature) -> Mistral (ids mapped to its nine characters) ->
// Cohere (no extra_content) -> DeepSeek V4 (reasoning_content echoed for
// its own calls, "" for the others) -> Gemini 3 again -> Mistral for the
// final answer. Every request carries the whole history; a strict fake
// refuses any id, field or pairing the real API would refuse.
func TestThreadMovesBetweenProvidersMidToolLoop(t *testing.T) {
	type step struct {
		provider, model string
		newFake         func() *fake.Server
		reply           fake.Reply
		stream          bool
	}
	mistral := func() *fake.Server { return fake.NewOpenAIHost("mistral") }
	steps := []step{
		{"google", "gemini-3-flash-preview", fake.NewGemini, fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"loc":"SF"}`}, {Name: "t2"}}}, false},
		{"mistral", "mistral-large-latest", mistral, fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"loc":"LA"}`}}}, true},
		{"cohere", "command-a-03-2025", fake.NewCohere, fake.Reply{ToolCalls: []fake.ToolCall{{ID: "get_weather_k2p8x1", Name: "get_weather", Arguments: `{"loc":"NY"}`}}}, false},
		{"deepseek", "deepseek-v4-flash", fake.NewDeepSeek, fake.Reply{Reasoning: "One more city.", ToolCalls: []fake.ToolCall{{ID: "call_00_ds7Qm", Name: "get_weather", Arguments: `{"loc":"SEA"}`}}}, true},
		{"google", "gemini-3.1-pro-preview", fake.NewGemini, fake.Reply{ToolCalls: []fake.ToolCall{{Name: "t2"}, {Name: "get_weather", Arguments: `{"loc":"BOS"}`}}}, true},
		{"mistral", "magistral-medium-latest", mistral, fake.Reply{Text: "Sunny everywhere."}, false},
	}
	ctx := context.Background()
	msgs := []engine.Message{{Role: "system", Content: engine.TextContent("Be brief.")}, userMsg("Weather in five cities?")}
	tools := []engine.Tool{weatherTool, {Type: "function", Function: engine.ToolFunction{Name: "t2"}}}
	fakes := map[string]*fake.Server{} // one upstream per provider, as in production
	defer func() {
		for _, f := range fakes {
			f.Close()
		}
	}()
	for i, st := range steps {
		f := fakes[st.provider]
		if f == nil {
			f = st.newFake()
			fakes[st.provider] = f
		}
		m, err := newRegistry(t, st.provider, f, &sleeps{}).ChatModel(engine.ModelRef{Provider: st.provider, Model: st.model})
		if err != nil {
			t.Fatal(err)
		}
		f.Enqueue(st.reply)
		req := &engine.ChatRequest{Model: st.model, APIKey: "k", Messages: msgs, Tools: tools, MaxTokens: intp(1000), ReasoningEffort: "low"}
		var calls []engine.ToolCall
		var text string
		if st.stream {
			s, err := m.ChatStream(ctx, req)
			if err != nil {
				t.Fatalf("step %d (%s): %v", i, st.model, err)
			}
			a, err := collect(t, s)
			if err != nil {
				t.Fatalf("step %d (%s): %v", i, st.model, err)
			}
			calls, text = a.calls, a.text
		} else {
			resp, err := m.Chat(ctx, req)
			if err != nil {
				t.Fatalf("step %d (%s): %v", i, st.model, err)
			}
			calls, text = resp.Choices[0].Message.ToolCalls, engine.Completion(resp)
		}
		if len(calls) != len(st.reply.ToolCalls) {
			t.Fatalf("step %d (%s): %d calls, want %d", i, st.model, len(calls), len(st.reply.ToolCalls))
		}
		if len(calls) == 0 {
			if text != "Sunny everywhere." {
				t.Fatalf("final answer %q", text)
			}
			return
		}
		msgs = append(msgs, engine.Message{Role: "assistant", ToolCalls: calls})
		for _, tc := range calls {
			if tc.ID == "" {
				t.Fatalf("step %d (%s): a call without id", i, st.model)
			}
			msgs = append(msgs, engine.Message{Role: "tool", ToolCallID: tc.ID, Content: engine.TextContent(`{"sky":"clear"}`)})
		}
	}
	t.Fatal("the conversation did not end with an answer")
}
