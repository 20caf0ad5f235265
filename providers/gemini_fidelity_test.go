package providers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
)

func geminiModel(t *testing.T, f *fake.Server, model string, sl *sleeps) engine.ChatModel {
	t.Helper()
	m, err := newRegistry(t, "google", f, sl).ChatModel(engine.ModelRef{Provider: "google", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// toolTurn is a multi-turn tool conversation: ask, get calls, answer them,
// get the final text. It returns the calls of the first step.
func toolTurn(t *testing.T, m engine.ChatModel, model string, stream bool) []engine.ToolCall {
	t.Helper()
	ctx := context.Background()
	msgs := []engine.Message{userMsg("Weather in SF?")}
	req := func() *engine.ChatRequest {
		return &engine.ChatRequest{Model: model, APIKey: "k", Messages: msgs,
			Tools: []engine.Tool{weatherTool, {Type: "function", Function: engine.ToolFunction{Name: "t2"}}}}
	}
	var calls []engine.ToolCall
	if stream {
		s, err := m.ChatStream(ctx, req())
		if err != nil {
			t.Fatal(err)
		}
		a, err := collect(t, s)
		if err != nil {
			t.Fatal(err)
		}
		calls = a.calls
	} else {
		resp, err := m.Chat(ctx, req())
		if err != nil {
			t.Fatal(err)
		}
		calls = resp.Choices[0].Message.ToolCalls
	}
	if len(calls) != 2 {
		t.Fatalf("calls %+v", calls)
	}
	msgs = append(msgs, engine.Message{Role: "assistant", ToolCalls: calls},
		engine.Message{Role: "tool", ToolCallID: calls[0].ID, Content: engine.TextContent(`{"temp":21}`)},
		engine.Message{Role: "tool", ToolCallID: calls[1].ID, Content: engine.TextContent(`ok`)})
	resp, err := m.Chat(ctx, req())
	if err != nil {
		t.Fatalf("second step: %v", err)
	}
	if engine.Completion(resp) != "It is sunny." {
		t.Fatalf("final answer %q", engine.Completion(resp))
	}
	return calls
}

func TestGeminiThoughtSignaturesRoundTrip(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	for _, stream := range []bool{false, true} {
		f.Reset()
		f.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"loc":"SF"}`}, {Name: "t2"}}}, fake.Reply{Text: "It is sunny."})
		calls := toolTurn(t, geminiModel(t, f, "gemini-3-flash-preview", nil), "gemini-3-flash-preview", stream)
		if !strings.Contains(string(calls[0].ExtraContent), `"thought_signature"`) || len(calls[1].ExtraContent) != 0 {
			t.Errorf("stream=%v: extra_content %s / %s", stream, calls[0].ExtraContent, calls[1].ExtraContent)
		}
		contents := f.LastRequest().JSON()["contents"].([]any)
		parts := contents[1].(map[string]any)["parts"].([]any)
		if parts[0].(map[string]any)["thoughtSignature"] == nil || parts[1].(map[string]any)["thoughtSignature"] != nil {
			t.Errorf("stream=%v: signatures sent back %v", stream, parts)
		}
	}
}

func TestGeminiSignatureFromOtherProvider(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	m := geminiModel(t, f, "gemini-3.1-pro-preview", nil)
	req := &engine.ChatRequest{Model: "gemini-3.1-pro-preview", APIKey: "k", Tools: []engine.Tool{weatherTool}, Messages: []engine.Message{
		userMsg("Weather?"),
		{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "toolu_1", Type: "function", Function: engine.FunctionCall{Name: "get_weather", Arguments: `{"loc":"SF"}`}}}},
		{Role: "tool", ToolCallID: "toolu_1", Content: engine.TextContent("21C")}}}
	if _, err := m.Chat(context.Background(), req); err != nil {
		t.Fatalf("a call Gemini never signed (thread from another model) must go with the documented skip value: %v", err)
	}
	// The fake itself rejects a missing signature, as Gemini 3 does.
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`
	resp, err := http.Post(f.BaseURL()+"/models/gemini-3-flash-preview:generateContent", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("fake accepted a Gemini 3 tool step without thought signature: %d", resp.StatusCode)
	}
}

func TestGeminiToolSchemas(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok", JSON: `{"a":{"n":1}}`})
	m := geminiModel(t, f, "gemini-2.5-flash-lite", nil)
	refSchema := json.RawMessage(`{"type":"object","$defs":{"pt":{"type":"object","properties":{"n":{"type":"integer"}}}},"properties":{"a":{"$ref":"#/$defs/pt"}},"required":["a"],"additionalProperties":false}`)
	req := &engine.ChatRequest{Model: "gemini-2.5-flash-lite", APIKey: "k", Messages: []engine.Message{userMsg("hi")},
		Tools: []engine.Tool{
			{Type: "function", Function: engine.ToolFunction{Name: "now"}},
			{Type: "function", Function: engine.ToolFunction{Name: "empty", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
			{Type: "function", Function: engine.ToolFunction{Name: "nested", Parameters: refSchema}},
		},
		ResponseFormat: &engine.ResponseFormat{Type: "json_schema", JSONSchema: &engine.JSONSchema{Name: "x", Schema: refSchema}}}
	if _, err := m.Chat(context.Background(), req); err != nil {
		t.Fatalf("tools without parameters and with $ref: %v", err)
	}
	body := f.LastRequest().JSON()
	decls := body["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
	for _, d := range decls[:2] {
		if _, ok := d.(map[string]any)["parametersJsonSchema"]; ok {
			t.Errorf("a tool without parameters must leave them unset: %v", d)
		}
	}
	var want any
	json.Unmarshal(refSchema, &want)
	if got := decls[2].(map[string]any)["parametersJsonSchema"]; !reflect.DeepEqual(got, want) {
		t.Errorf("$ref/$defs not kept: %v", got)
	}
	if got := body["generationConfig"].(map[string]any)["responseJsonSchema"]; !reflect.DeepEqual(got, want) {
		t.Errorf("response schema: %v", got)
	}
}

func TestGeminiReasoningAndTemperature(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	cases := []struct {
		model, effort string
		want          map[string]any // thinkingConfig, nil when absent
		temperature   bool
	}{
		{"gemini-2.5-flash-lite", "none", map[string]any{"thinkingBudget": 0.0}, true},
		{"gemini-2.5-flash-lite", "medium", map[string]any{"thinkingBudget": 8192.0}, true},
		{"gemini-3-flash-preview", "none", map[string]any{"thinkingLevel": "minimal"}, false},
		{"gemini-3-flash-preview", "medium", map[string]any{"thinkingLevel": "medium"}, false},
		{"gemini-3.1-pro-preview", "none", map[string]any{"thinkingLevel": "low"}, false},
		{"gemini-3.1-pro-preview", "medium", map[string]any{"thinkingLevel": "medium"}, false},
		{"gemini-3.5-flash", "low", map[string]any{"thinkingLevel": "low"}, false},
	}
	for _, c := range cases {
		req := &engine.ChatRequest{Model: c.model, APIKey: "k", Messages: []engine.Message{userMsg("hi")}, ReasoningEffort: c.effort, Temperature: f64(0.7)}
		body := sentBody(t, "google", f, req)
		gc, _ := body["generationConfig"].(map[string]any)
		var got map[string]any
		if gc != nil {
			got, _ = gc["thinkingConfig"].(map[string]any)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s: thinkingConfig %v, want %v", c.model, c.effort, got, c.want)
		}
		if _, sent := gc["temperature"]; sent != c.temperature {
			t.Errorf("%s: temperature sent=%v, want %v", c.model, sent, c.temperature)
		}
	}
}

func TestGeminiBodyRetryDelayAndDailyQuota(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	sl := &sleeps{}
	m := geminiModel(t, f, "gemini-2.5-flash-lite", sl)
	f.Enqueue(fake.Reply{Status: 429, RetryDelay: "3s", QuotaID: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}, fake.Reply{Text: "ok"})
	if _, err := m.Chat(context.Background(), &engine.ChatRequest{Model: "gemini-2.5-flash-lite", Messages: []engine.Message{userMsg("hi")}}); err != nil {
		t.Fatal(err)
	}
	if d := sl.list(); len(d) != 1 || d[0] != 3*time.Second {
		t.Errorf("waits %v, want the body's retryDelay 3s", d)
	}
	f.Reset()
	f.SetDefault(fake.Reply{Status: 429, RetryDelay: "40s", QuotaID: "GenerateRequestsPerDayPerProjectPerModel-FreeTier"})
	_, err := m.Chat(context.Background(), &engine.ChatRequest{Model: "gemini-2.5-flash-lite", Messages: []engine.Message{userMsg("hi")}})
	e := asEngine(t, err)
	if e.Code != engine.CodeRateLimited || e.RetryAfter != 40 || !strings.Contains(e.Message, "PerDay") || f.Count() != 1 {
		t.Errorf("daily quota: %v (retry after %d) after %d requests, want one request", err, e.RetryAfter, f.Count())
	}
}

func TestGeminiCallIDsAreUnique(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	f.SetDefault(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{}`}, {Name: "t2"}}})
	m := geminiModel(t, f, "gemini-2.5-flash-lite", nil)
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		resp, err := m.Chat(context.Background(), &engine.ChatRequest{Model: "gemini-2.5-flash-lite", Messages: []engine.Message{userMsg("hi")}, Tools: []engine.Tool{weatherTool}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range resp.Choices[0].Message.ToolCalls {
			if seen[c.ID] || c.ID == "" {
				t.Fatalf("call id %q repeats across turns", c.ID)
			}
			seen[c.ID] = true
		}
	}
}

func TestGeminiToolFinishReasonsAreErrors(t *testing.T) {
	f := fake.NewGemini()
	defer f.Close()
	m := geminiModel(t, f, "gemini-2.5-flash-lite", nil)
	for _, reason := range []string{"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"} {
		f.Reset()
		f.SetDefault(fake.Reply{Text: " ", Finish: reason})
		req := &engine.ChatRequest{Model: "gemini-2.5-flash-lite", Messages: []engine.Message{userMsg("hi")}, Tools: []engine.Tool{weatherTool}}
		_, err := m.Chat(context.Background(), req)
		if code(err) != engine.CodeUpstream || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: %v", reason, err)
		}
		s, err := m.ChatStream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := collect(t, s); code(err) != engine.CodeUpstream || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s stream: %v", reason, err)
		}
	}
}
