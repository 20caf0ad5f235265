package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestResponsesStreamReasoning: when the upstream streams its reasoning
// (Anthropic thinking, DeepSeek reasoning_content), a streamed response
// starts with a reasoning item whose summary text streams as
// response.reasoning_summary_text.delta, in OpenAI's event order, before
// the function call; the provider state (the signed thinking block, the
// reasoning_content) rides in the trailing reasoning item's
// encrypted_content, and the client replaying the output gets a second
// turn the strict upstream accepts.
func TestResponsesStreamReasoning(t *testing.T) {
	cases := []struct {
		provider, model string
		up              *fake.Server
	}{
		{"anthropic", "claude-sonnet-4-6", fake.NewAnthropic()},
		{"deepseek", "deepseek-v4-flash", fake.NewDeepSeek()},
	}
	for _, tc := range cases {
		t.Run(tc.provider, func(t *testing.T) {
			defer tc.up.Close()
			ts := servertest.Start(t, servertest.WithProvider(tc.provider, tc.up.BaseURL(), "sk-test"))
			key := servertest.AdminKey
			tools := []map[string]any{{"type": "function", "name": "get_weather", "parameters": map[string]any{"type": "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}}}}}
			input := []any{map[string]any{"role": "user", "content": "Weather in Paris?"}}
			// A whole answer starts with the reasoning item too.
			tc.up.Enqueue(fake.Reply{Reasoning: "The user wants Paris weather.", ToolCalls: []fake.ToolCall{{ID: "call_0", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
			whole, r := createResponse(t, ts, key, map[string]any{"model": tc.provider + ":" + tc.model, "input": input, "tools": tools, "store": false,
				"reasoning": map[string]any{"effort": "high"}})
			if whole.Output[0].Type != "reasoning" || !strings.Contains(string(r.Body), `"summary":[{"type":"summary_text","text":"The user wants Paris weather."}]`) {
				t.Fatalf("whole answer: %s", r.Body)
			}
			tc.up.Enqueue(fake.Reply{Reasoning: "The user wants Paris weather.", ToolCalls: []fake.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
			body := map[string]any{"model": tc.provider + ":" + tc.model, "input": input, "tools": tools, "store": false,
				"reasoning": map[string]any{"effort": "high", "summary": "auto"}}
			evs := streamResponseEvents(t, ts, key, body)
			// Consecutive deltas count once: DeepSeek streams word by word.
			types := slices.Compact(eventTypes(evs))
			want := []string{"created", "in_progress", "output_item.added", "reasoning_summary_part.added", "reasoning_summary_text.delta",
				"reasoning_summary_text.done", "reasoning_summary_part.done", "output_item.done", "output_item.added"}
			if len(types) < len(want) || !slices.Equal(types[:len(want)], want) {
				t.Fatalf("events:\n got %v\nwant %v...", types, want)
			}
			var summary string
			var textDone, itemDone respStreamEvent
			for _, e := range evs {
				switch e.Type {
				case "response.reasoning_summary_text.delta":
					// A signature piece of Anthropic's thinking has no text
					// and makes no event.
					if e.Delta == "" {
						t.Fatalf("empty reasoning delta: %s", e.Raw)
					}
					summary += e.Delta
				case "response.reasoning_summary_text.done":
					textDone = e
				case "response.output_item.done":
					if itemDone.Type == "" {
						itemDone = e
					}
				}
			}
			if summary != "The user wants Paris weather." || textDone.Text != summary || itemDone.Item.Type != "reasoning" ||
				!strings.Contains(string(itemDone.Raw), `"summary":[{"type":"summary_text","text":"The user wants Paris weather."}]`) {
				t.Fatalf("reasoning events: %q %s %s", summary, textDone.Raw, itemDone.Raw)
			}
			done := evs[len(evs)-1]
			if done.Type != "response.completed" {
				t.Fatalf("last event: %s", done.Raw)
			}
			var out []json.RawMessage
			json.Unmarshal(done.Raw, &struct {
				Response *struct {
					Output *[]json.RawMessage `json:"output"`
				} `json:"response"`
			}{&struct {
				Output *[]json.RawMessage `json:"output"`
			}{&out}})
			var call oaiItem
			state := false
			for _, raw := range out {
				var it oaiItem
				json.Unmarshal(raw, &it)
				if it.Type == "function_call" {
					call = it
				}
				state = state || strings.HasPrefix(it.EncryptedContent, "hearth.v1:")
			}
			if call.CallID == "" || !state {
				t.Fatalf("completed output: %s", done.Raw)
			}
			// The client replays the output and the tool result; the strict
			// upstream refuses the turn unless its state came back.
			tc.up.Enqueue(fake.Reply{Text: "Sunny in Paris."})
			next := append(append([]any{}, input...), anySlice(out)...)
			next = append(next, map[string]any{"type": "function_call_output", "call_id": call.CallID, "output": "sunny"})
			body["input"], body["stream"] = next, false
			res, r := createResponse(t, ts, key, body)
			if res.text() != "Sunny in Paris." {
				t.Fatalf("second turn: %s", r.Body)
			}
		})
	}
}
