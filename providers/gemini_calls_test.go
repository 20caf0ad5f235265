package providers_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestGeminiCallIDsGoBack: Gemini 3 gives each function call an id and
// pairs parallel calls with their responses by it; the id kept on the way
// in goes back on functionCall and on the matching functionResponse, or
// the API answers 400 "functionResponse.id does not match".
func TestGeminiCallIDsGoBack(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	for _, model := range []string{"gemini-3-flash-preview", "gemini-3.1-pro-preview"} {
		for _, stream := range []bool{false, true} {
			f.Reset()
			f.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"loc":"SF"}`}, {Name: "t2"}}}, fake.Reply{Text: "It is sunny."})
			calls := toolTurn(t, geminiModel(t, f, model, nil), model, stream)
			var body struct {
				Contents []struct {
					Parts []struct {
						FunctionCall     *struct{ ID, Name string } `json:"functionCall"`
						FunctionResponse *struct{ ID, Name string } `json:"functionResponse"`
					} `json:"parts"`
				} `json:"contents"`
			}
			json.Unmarshal(f.LastRequest().Body, &body)
			calledIDs, answeredIDs := []string{}, []string{}
			for _, c := range body.Contents {
				for _, p := range c.Parts {
					if p.FunctionCall != nil {
						calledIDs = append(calledIDs, p.FunctionCall.ID)
					}
					if p.FunctionResponse != nil {
						answeredIDs = append(answeredIDs, p.FunctionResponse.ID)
					}
				}
			}
			for i, tc := range calls {
				if i >= len(calledIDs) || i >= len(answeredIDs) || calledIDs[i] != tc.ID || answeredIDs[i] != tc.ID {
					t.Errorf("%s stream=%v: call %s went back as functionCall.id %v, functionResponse.id %v", model, stream, tc.ID, calledIDs, answeredIDs)
				}
			}
		}
	}
}

// TestGeminiThinkingBudgetDefault: Gemini 2.5 and 3 think by default and
// thinking counts toward maxOutputTokens, so the pipe default max_tokens
// (1000) left an empty answer; thinking models get 32768 instead, and a
// value the caller chose is sent as given.
func TestGeminiThinkingBudgetDefault(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	cases := []struct {
		model     string
		maxTokens int
		want      float64
	}{
		{"gemini-3-flash-preview", 1000, 32768},
		{"gemini-3.1-pro-preview", 1000, 32768},
		{"gemini-2.5-flash-lite", 1000, 32768},
		{"gemini-3-flash-preview", 8000, 8000},
	}
	for _, c := range cases {
		f.Reset()
		f.SetDefault(fake.Reply{Text: "Paris."})
		m := geminiModel(t, f, c.model, nil)
		req := &engine.ChatRequest{Model: c.model, APIKey: "k", MaxTokens: intp(c.maxTokens), Messages: []engine.Message{userMsg("Capital of France?")}}
		resp, err := m.Chat(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if engine.Completion(resp) != "Paris." || resp.Choices[0].FinishReason != "stop" {
			t.Errorf("%s max_tokens %d: answer %q (%s), want the whole answer", c.model, c.maxTokens, engine.Completion(resp), resp.Choices[0].FinishReason)
		}
		gc := f.LastRequest().JSON()["generationConfig"].(map[string]any)
		if gc["maxOutputTokens"] != c.want {
			t.Errorf("%s max_tokens %d: maxOutputTokens %v, want %v", c.model, c.maxTokens, gc["maxOutputTokens"], c.want)
		}
		s, err := m.ChatStream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if a, err := collect(t, s); err != nil || a.text != "Paris." {
			t.Errorf("%s stream: %q %v", c.model, a.text, err)
		}
	}
	// The strict fake spends thinking out of maxOutputTokens as Gemini does.
	f.Reset()
	f.SetDefault(fake.Reply{Text: "Paris."})
	m := geminiModel(t, f, "gemini-3-flash-preview", nil)
	resp, err := m.Chat(context.Background(), &engine.ChatRequest{Model: "gemini-3-flash-preview", APIKey: "k", MaxTokens: intp(200), Messages: []engine.Message{userMsg("hi")}})
	if err != nil || engine.Completion(resp) != "" || resp.Choices[0].FinishReason != "length" {
		t.Errorf("a budget thinking exhausts must leave no answer: %+v %v", resp, err)
	}
}
