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
	mistral := func() *fake.Server { return fake.NewOpenAIHost("mistral") }
	runToolLoop(t, []loopStep{
		{"google", "gemini-3-flash-preview", fake.NewGemini, fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"loc":"SF"}`}, {Name: "t2"}}}, false},
		{"mistral", "mistral-large-latest", mistral, fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"loc":"LA"}`}}}, true},
		{"cohere", "command-a-03-2025", fake.NewCohere, fake.Reply{ToolCalls: []fake.ToolCall{{ID: "get_weather_k2p8x1", Name: "get_weather", Arguments: `{"loc":"NY"}`}}}, false},
		{"deepseek", "deepseek-v4-flash", fake.NewDeepSeek, fake.Reply{Reasoning: "One more city.", ToolCalls: []fake.ToolCall{{ID: "call_00_ds7Qm", Name: "get_weather", Arguments: `{"loc":"SEA"}`}}}, true},
		{"google", "gemini-3.1-pro-preview", fake.NewGemini, fake.Reply{ToolCalls: []fake.ToolCall{{Name: "t2"}, {Name: "get_weather", Arguments: `{"loc":"BOS"}`}}}, true},
		{"mistral", "magistral-medium-latest", mistral, fake.Reply{Text: "Sunny everywhere."}, false},
	})
}

// TestThreadMovesThroughEveryFamily runs one tool conversation through a
// current model of every family, each step answering the previous one's
// calls: OpenAI gpt-6 (tools at effort none) -> Claude Opus 5.5 (thinking
// bound to it) -> xAI grok-4.5 -> Groq gpt-oss -> Claude Sonnet 5.5 (Opus's
// thinking not echoed to it) -> Gemini 3.8 (ids and signatures) -> Mistral
// magistral (thinking chunks, nine-character ids) -> Claude Opus 5.5 again
// (its own thinking echoed in place) -> DeepSeek V4 (reasoning_content) ->
// Claude Opus 5 -> Claude Haiku 5.5 -> Cohere for the final answer. A
// Claude model answering another provider's tool calls runs without
// thinking, or, when it always thinks, gets that exchange as text.
func TestThreadMovesThroughEveryFamily(t *testing.T) {
	host := func(name string) func() *fake.Server { return func() *fake.Server { return fake.NewOpenAIHost(name) } }
	// Ids as each provider issues them, distinct across the thread.
	call := func(id, loc string) fake.Reply {
		return fake.Reply{ToolCalls: []fake.ToolCall{{ID: id, Name: "get_weather", Arguments: `{"loc":"` + loc + `"}`}}}
	}
	two := func(a, b string) fake.Reply {
		return fake.Reply{ToolCalls: []fake.ToolCall{{ID: a, Name: "get_weather", Arguments: `{"loc":"LA"}`}, {ID: b, Name: "t2"}}}
	}
	runToolLoop(t, []loopStep{
		{"openai", "gpt-6-sol", fake.NewOpenAI, two("call_gpt6a", "call_gpt6b"), true},
		{"anthropic", "claude-opus-5-5", fake.NewAnthropic, call("toolu_01OpusNY", "NY"), false},
		{"xai", "grok-4.5", host("xai"), call("call_grokSEA", "SEA"), true},
		{"groq", "openai/gpt-oss-120b", host("groq"), call("call_groqBOS", "BOS"), false},
		{"anthropic", "claude-sonnet-5-5", fake.NewAnthropic, two("toolu_01SonLA", "toolu_01SonT2"), true},
		{"google", "gemini-3.8-flash", fake.NewGemini, two("", ""), false},
		{"mistral", "magistral-medium-latest", host("mistral"), fake.Reply{Reasoning: "Two more.", ToolCalls: []fake.ToolCall{{Name: "t2"}}}, true},
		{"anthropic", "claude-opus-5-5", fake.NewAnthropic, call("toolu_01OpusSF", "SF"), true},
		{"deepseek", "deepseek-v4-pro", fake.NewDeepSeek, fake.Reply{Reasoning: "Last city.", ToolCalls: []fake.ToolCall{{ID: "call_00_ds9Kq", Name: "get_weather", Arguments: `{"loc":"DC"}`}}}, false},
		{"anthropic", "claude-opus-5", fake.NewAnthropic, call("toolu_01Opus5PHX", "PHX"), true},
		{"anthropic", "claude-haiku-5-5", fake.NewAnthropic, call("toolu_01HaikuMIA", "MIA"), false},
		{"cohere", "command-a-03-2025", fake.NewCohere, fake.Reply{Text: "Sunny everywhere."}, true},
	})
}

// loopStep is one call of a tool conversation: the provider and model, a
// fake of its kind, its scripted reply, and whether it streams.
type loopStep struct {
	provider, model string
	newFake         func() *fake.Server
	reply           fake.Reply
	stream          bool
}

// runToolLoop runs steps in turn on one growing history, each step's tool
// calls answered before the next; the last step answers "Sunny everywhere.".
func runToolLoop(t *testing.T, steps []loopStep) {
	t.Helper()
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
