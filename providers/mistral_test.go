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
