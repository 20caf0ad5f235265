package providers_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

var mistralIDShape = regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)

func mistralModel(t *testing.T, f *fake.Server, model string) engine.ChatModel {
	t.Helper()
	m, err := newRegistry(t, "mistral", f, &sleeps{}).ChatModel(engine.ModelRef{Provider: "mistral", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMistralMapsForeignToolCallIDs: a tool history from Gemini
// (call_ + 24 characters) or Anthropic (toolu_...) has ids Mistral refuses
// (exactly nine of [a-zA-Z0-9], 400). They are mapped to nine characters
// derived from the original id, the same on every request, so each tool
// result still pairs with its call; Mistral's own ids go unchanged.
func TestMistralMapsForeignToolCallIDs(t *testing.T) {
	f := fake.NewOpenAIHost("mistral")
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "It is sunny."})
	m := mistralModel(t, f, "mistral-large-latest")
	ids := []string{"call_Ab3dE5gH9jK1mN2pQ4rS6tU8", "toolu_01A09q90qw90lq917835lq9", "Xy7Kp2Lm9"}
	var calls []engine.ToolCall
	for _, id := range ids {
		calls = append(calls, engine.ToolCall{ID: id, Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: `{"loc":"SF"}`}})
	}
	msgs := []engine.Message{userMsg("Weather?"), {Role: "assistant", ToolCalls: calls}}
	for _, id := range ids {
		msgs = append(msgs, engine.Message{Role: "tool", ToolCallID: id, Content: engine.TextContent("21C " + id)})
	}
	req := &engine.ChatRequest{Model: "mistral-large-latest", APIKey: "k", Tools: []engine.Tool{weatherTool}, Messages: msgs}
	sent := func() (callIDs, resultIDs []string) {
		var body struct {
			Messages []struct {
				ToolCallID string `json:"tool_call_id"`
				ToolCalls  []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		json.Unmarshal(f.LastRequest().Body, &body)
		for _, m := range body.Messages {
			for _, tc := range m.ToolCalls {
				callIDs = append(callIDs, tc.ID)
			}
			if m.ToolCallID != "" {
				resultIDs = append(resultIDs, m.ToolCallID)
			}
		}
		return
	}
	if _, err := m.Chat(context.Background(), req); err != nil {
		t.Fatalf("history with foreign tool call ids: %v", err)
	}
	first, results := sent()
	if len(first) != 3 || strings.Join(first, ",") != strings.Join(results, ",") {
		t.Fatalf("calls %v and results %v do not pair", first, results)
	}
	seen := map[string]bool{}
	for i, id := range first {
		if !mistralIDShape.MatchString(id) || seen[id] {
			t.Errorf("id %q (from %q) is not a distinct Mistral id", id, ids[i])
		}
		seen[id] = true
	}
	if first[2] != ids[2] {
		t.Errorf("a Mistral id was changed: %q -> %q", ids[2], first[2])
	}
	s, err := m.ChatStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, s); err != nil {
		t.Fatal(err)
	}
	if again, _ := sent(); strings.Join(again, ",") != strings.Join(first, ",") {
		t.Errorf("the mapping changed between requests: %v then %v", first, again)
	}
	if req.Messages[1].ToolCalls[0].ID != ids[0] || req.Messages[2].ToolCallID != ids[0] {
		t.Error("the request was mutated")
	}
}

// TestMistralReasoningContentChunks: Mistral's reasoning answers carry
// message.content and delta.content as arrays of thinking and text
// chunks; the answer is the text, and the thinking is kept out of it.
func TestMistralReasoningContentChunks(t *testing.T) {
	f := fake.NewOpenAIHost("mistral")
	defer f.Close()
	for _, model := range []string{"magistral-medium-latest", "mistral-small-latest"} {
		m := mistralModel(t, f, model)
		reply := fake.Reply{Text: "It is sunny.", Reasoning: "The user asks about weather. "}
		f.Enqueue(reply, reply)
		req := &engine.ChatRequest{Model: model, APIKey: "k", Messages: []engine.Message{userMsg("Weather?")}}
		resp, err := m.Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if got := engine.Completion(resp); got != "It is sunny." {
			t.Errorf("%s: answer %q", model, got)
		}
		if !strings.Contains(string(f.Requests()[len(f.Requests())-1].Body), model) {
			t.Fatal("request not recorded")
		}
		s, err := m.ChatStream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		a, err := collect(t, s)
		if err != nil || a.text != "It is sunny." {
			t.Errorf("%s stream: %q %v", model, a.text, err)
		}
	}
}

// TestMistralReasoningSurfaced: a reasoning answer's thinking chunks are
// its reasoning: its size counts as reasoning tokens in the usage (Mistral
// reports none), and with tool calls the thinking rides on the first call
// (extra_content "mistral"), as DeepSeek's reasoning does; the next turn,
// with that history, is accepted by the strict fake.
func TestMistralReasoningSurfaced(t *testing.T) {
	f := fake.NewOpenAIHost("mistral")
	defer f.Close()
	const thinking = "The user wants the weather in Paris, so I call the tool."
	reply := fake.Reply{Reasoning: thinking, ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"loc":"Paris"}`}},
		Usage: fake.Usage{PromptTokens: 20, CompletionTokens: 40}}
	m := mistralModel(t, f, "magistral-medium-latest")
	req := &engine.ChatRequest{Model: "magistral-medium-latest", APIKey: "k", Tools: []engine.Tool{weatherTool}, Messages: []engine.Message{userMsg("Weather in Paris?")}}
	wantTokens := (len(thinking) + 3) / 4
	for _, stream := range []bool{false, true} {
		f.Enqueue(reply)
		calls, u := callOnce(t, m, req, stream)
		if u == nil || u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens != wantTokens {
			t.Errorf("stream=%v: usage %+v, want %d reasoning tokens", stream, u, wantTokens)
		}
		if len(calls) != 1 || !strings.Contains(string(calls[0].ExtraContent), `"mistral":{"reasoning_content":"`+thinking+`"}`) {
			t.Fatalf("stream=%v: calls %+v, want the thinking on the call", stream, calls)
		}
		next := *req
		next.Messages = append(append([]engine.Message{}, req.Messages...),
			engine.Message{Role: "assistant", ToolCalls: calls},
			engine.Message{Role: "tool", ToolCallID: calls[0].ID, Content: engine.TextContent("18C, sunny")})
		f.Enqueue(fake.Reply{Text: "It is 18C and sunny.", Reasoning: "Answer from the tool."})
		resp, err := m.Chat(context.Background(), &next)
		if err != nil || engine.Completion(resp) != "It is 18C and sunny." {
			t.Fatalf("stream=%v: next turn %v %v", stream, resp, err)
		}
	}
}
