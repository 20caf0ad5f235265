package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestResponsesEveryProvider: the Responses API on an OpenAI-shaped
// upstream, Anthropic, Gemini and a local OpenAI-compatible server (as
// ollama): text answers whole and streamed with the instructions reaching
// the upstream, and a function call over two turns where the client
// replays the output items. Claude's thinking and Gemini 3's thought
// signatures ride in the reasoning item's encrypted_content and reach the
// upstream on the second turn (the Anthropic fake refuses the turn
// without them).
func TestResponsesEveryProvider(t *testing.T) {
	cases := []struct {
		provider, model string
		up              *fake.Server
		reasoning       map[string]any
		wantReasoning   bool
		// strict: the upstream refuses the turn without the state.
		strict bool
	}{
		{"openai", "gpt-4o-mini", fake.NewOpenAI(), nil, false, false},
		{"anthropic", "claude-sonnet-4-6", fake.NewAnthropic(), map[string]any{"effort": "high"}, true, true},
		{"google", "gemini-3-flash-preview", fake.NewGemini(), nil, true, false},
		{"ollama", "llama3.2", fake.NewOpenAI(), nil, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.provider, func(t *testing.T) {
			defer tc.up.Close()
			ts := servertest.Start(t, servertest.WithProvider(tc.provider, tc.up.BaseURL(), "sk-test"))
			key := servertest.AdminKey
			model := tc.provider + ":" + tc.model

			tc.up.Enqueue(fake.Reply{Text: "Bonjour tout le monde"})
			res, r := createResponse(t, ts, key, map[string]any{"model": model, "input": "hello", "instructions": "Answer in French."})
			if res.text() != "Bonjour tout le monde" || res.Status != "completed" || res.Usage.InputTokens != fake.DefaultUsage.PromptTokens ||
				!strings.Contains(string(tc.up.LastRequest().Body), "Answer in French.") {
				t.Fatalf("text: %s\nupstream: %s", r.Body, tc.up.LastRequest().Body)
			}
			tc.up.Enqueue(fake.Reply{Text: "streamed answer here"})
			evs := streamResponseEvents(t, ts, key, map[string]any{"model": model, "input": "hello", "instructions": "Answer in French."})
			if last := evs[len(evs)-1]; last.Type != "response.completed" || last.Resp.text() != "streamed answer here" || last.Resp.Usage.OutputTokens == 0 {
				t.Fatalf("stream: %v %s", eventTypes(evs), last.Raw)
			}

			tools := []map[string]any{{"type": "function", "name": "get_weather", "parameters": map[string]any{"type": "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}}}}}
			input := []any{map[string]any{"role": "user", "content": "Weather in Paris?"}}
			tc.up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
			body := map[string]any{"model": model, "input": input, "tools": tools, "store": false}
			if tc.reasoning != nil {
				body["reasoning"] = tc.reasoning
			}
			res, r = createResponse(t, ts, key, body)
			var call *oaiItem
			var reasoning []oaiItem
			for i, it := range res.Output {
				switch it.Type {
				case "function_call":
					call = &res.Output[i]
				case "reasoning":
					reasoning = append(reasoning, it)
				}
			}
			if call == nil || call.Name != "get_weather" || call.Arguments != `{"city":"Paris"}` || len(reasoning) > 0 != tc.wantReasoning {
				t.Fatalf("call (reasoning item expected: %v): %s", tc.wantReasoning, r.Body)
			}
			// The client sends the whole output back, then the tool result.
			var out []json.RawMessage
			json.Unmarshal(r.Body, &struct {
				Output *[]json.RawMessage `json:"output"`
			}{&out})
			for _, it := range out {
				input = append(input, it)
			}
			input = append(input, map[string]any{"type": "function_call_output", "call_id": call.CallID, "output": "sunny, 21 C"})
			tc.up.Enqueue(fake.Reply{Text: "It is sunny."})
			body["input"] = input
			two, r := createResponse(t, ts, key, body)
			if two.text() != "It is sunny." {
				t.Fatalf("turn two: %s\nupstream: %s", r.Body, tc.up.LastRequest().Body)
			}
			if !strings.Contains(string(tc.up.LastRequest().Body), "sunny, 21 C") {
				t.Fatalf("the tool result did not reach the upstream: %s", tc.up.LastRequest().Body)
			}
			// The same turns, the first streamed: the provider state is in
			// the completed response's reasoning item.
			tc.up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Rome"}`}}})
			sbody := map[string]any{"model": model, "input": input[:1], "tools": tools, "store": false}
			if tc.reasoning != nil {
				sbody["reasoning"] = tc.reasoning
			}
			evs = streamResponseEvents(t, ts, key, sbody)
			last := evs[len(evs)-1]
			var sout []json.RawMessage
			json.Unmarshal(last.Raw, &struct {
				Response *struct {
					Output *[]json.RawMessage `json:"output"`
				} `json:"response"`
			}{&struct {
				Output *[]json.RawMessage `json:"output"`
			}{&sout}})
			hasReasoning := false
			var scall *oaiItem
			for i, it := range last.Resp.Output {
				hasReasoning = hasReasoning || it.Type == "reasoning"
				if it.Type == "function_call" {
					scall = &last.Resp.Output[i]
				}
			}
			if scall == nil || hasReasoning != tc.wantReasoning || len(sout) != len(last.Resp.Output) {
				t.Fatalf("streamed call: %v %s", eventTypes(evs), last.Raw)
			}
			sinput := append([]any{input[0]}, anySlice(sout)...)
			sinput = append(sinput, map[string]any{"type": "function_call_output", "call_id": scall.CallID, "output": "warm"})
			tc.up.Enqueue(fake.Reply{Text: "It is warm."})
			if three, r := createResponse(t, ts, key, map[string]any{"model": model, "input": sinput, "tools": tools, "store": false, "reasoning": tc.reasoning}); three.text() != "It is warm." {
				t.Fatalf("turn two after a stream: %s", r.Body)
			}
			if tc.provider == "google" {
				// The signature Gemini gave came back (the adapter sends
				// Google's documented skip value when a call has none).
				if b := string(tc.up.LastRequest().Body); !strings.Contains(b, `"thoughtSignature"`) || strings.Contains(b, "skip_thought_signature_validator") {
					t.Fatalf("turn two lost the thought signature: %s", b)
				}
			}
			if tc.strict {
				// Without the reasoning item there is no thinking to send
				// back, which the provider requires while it thinks: the
				// turn goes without thinking instead of being refused.
				var bare []any
				for _, it := range input {
					if b, _ := json.Marshal(it); !strings.Contains(string(b), `"type":"reasoning"`) {
						bare = append(bare, it)
					}
				}
				body["input"] = bare
				tc.up.Enqueue(fake.Reply{Text: "It is sunny."})
				r := ts.Do("POST", "/openai/v1/responses", key, body)
				if sent := string(tc.up.LastRequest().Body); r.Status != 200 || strings.Contains(sent, `"thinking"`) {
					t.Fatalf("a turn without the provider state: %d %s\nupstream: %s", r.Status, r.Body, sent)
				}
			}
		})
	}
}

// anySlice turns raw items into a list of input items.
func anySlice(raws []json.RawMessage) []any {
	out := make([]any, len(raws))
	for i, r := range raws {
		out[i] = r
	}
	return out
}
