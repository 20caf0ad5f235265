package providers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
	"github.com/hearth-dev/hearth/providers/fake"
)

// TestClaudeForcedToolChoice: Opus and Sonnet 5.5 and Fable 5.1 refuse
// forced tool use, so a required or named tool_choice goes as "auto" with
// the instruction in the system prompt; Claude 5 takes it with thinking
// switched off (it thinks by default, and thinking refuses forced tools).
func TestClaudeForcedToolChoice(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "toolu_w", Name: "get_weather", Arguments: `{"loc":"SF"}`}}})
	cases := []struct {
		model    string
		choice   engine.ToolChoice
		wantType string
		system   string // in the system prompt ("" : nothing added)
		thinking any
	}{
		{"claude-opus-5-5", engine.ToolChoice{Mode: "required"}, "auto", "You must call one of the provided tools", nil},
		{"claude-sonnet-5-5", engine.ToolChoice{Function: "get_weather"}, "auto", "You must call the tool `get_weather`", nil},
		{"claude-fable-5-1", engine.ToolChoice{Mode: "required"}, "auto", "You must call one of the provided tools", nil},
		{"claude-opus-5", engine.ToolChoice{Mode: "required"}, "any", "", map[string]any{"type": "disabled"}},
		{"claude-sonnet-5", engine.ToolChoice{Function: "get_weather"}, "tool", "", map[string]any{"type": "disabled"}},
	}
	for _, c := range cases {
		choice := c.choice
		req := &engine.ChatRequest{Model: c.model, APIKey: "k", MaxTokens: intp(1000), Tools: []engine.Tool{weatherTool}, ToolChoice: &choice,
			Messages: []engine.Message{{Role: "system", Content: engine.TextContent("Be brief.")}, userMsg("Weather in SF?")}}
		body := sentBody(t, "anthropic", f, req)
		tc, _ := body["tool_choice"].(map[string]any)
		if tc["type"] != c.wantType {
			t.Errorf("%s: tool_choice %v, want type %s", c.model, tc, c.wantType)
		}
		sys, _ := body["system"].(string)
		if !strings.HasPrefix(sys, "Be brief.") || (c.system != "" && !strings.Contains(sys, c.system)) || (c.system == "" && sys != "Be brief.") {
			t.Errorf("%s: system %q, want the instruction %q", c.model, sys, c.system)
		}
		if got, _ := json.Marshal(body["thinking"]); string(got) != mustJSONAny(c.thinking) {
			t.Errorf("%s: thinking %s, want %s", c.model, got, mustJSONAny(c.thinking))
		}
	}
}

func mustJSONAny(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestClaudeThinkingBudget: Claude 5.x thinks by default and max_tokens
// caps thinking plus answer, so the pipe default of 1000 (spent on
// thinking) becomes 32000 while thinking is on; effort "none" switches
// thinking off where the model allows it (Claude 5: thinking disabled)
// and is the lowest effort where it cannot (5.5-era models).
func TestClaudeThinkingBudget(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "It is sunny."})
	cases := []struct {
		model, effort string
		maxTokens     float64
		thinking      any
		effortSent    any
	}{
		{"claude-opus-5", "", 32000, nil, nil},
		{"claude-sonnet-5", "high", 32000, nil, "high"},
		{"claude-opus-5", "none", 1000, map[string]any{"type": "disabled"}, nil},
		{"claude-sonnet-5", "none", 1000, map[string]any{"type": "disabled"}, nil},
		{"claude-opus-5-5", "", 32000, nil, nil},
		{"claude-opus-5-5", "none", 32000, nil, "low"},
		{"claude-fable-5-1", "none", 32000, nil, "low"},
		{"claude-sonnet-5-5", "medium", 32000, nil, "medium"},
		// Before Claude 5 nothing thinks unless asked.
		{"claude-opus-4-8", "", 1000, nil, nil},
	}
	for _, c := range cases {
		for _, stream := range []bool{false, true} {
			m := anthropicModel(t, f, c.model)
			req := &engine.ChatRequest{Model: c.model, APIKey: "k", MaxTokens: intp(1000), Temperature: f64(0.7), ReasoningEffort: c.effort,
				Messages: []engine.Message{userMsg("Weather in SF?")}}
			var text, finish string
			if stream {
				s, err := m.ChatStream(context.Background(), req)
				if err != nil {
					t.Fatalf("%s %q: %v", c.model, c.effort, err)
				}
				a, err := collect(t, s)
				if err != nil {
					t.Fatalf("%s %q: %v", c.model, c.effort, err)
				}
				text, finish = a.text, a.finish
			} else {
				resp, err := m.Chat(context.Background(), req)
				if err != nil {
					t.Fatalf("%s %q: %v", c.model, c.effort, err)
				}
				text, finish = engine.Completion(resp), resp.Choices[0].FinishReason
			}
			if text != "It is sunny." || finish != "stop" {
				t.Errorf("%s %q stream=%v: answer %q finish %s (thinking spent max_tokens?)", c.model, c.effort, stream, text, finish)
			}
			body := f.LastRequest().JSON()
			if body["max_tokens"] != c.maxTokens {
				t.Errorf("%s %q: max_tokens %v, want %v", c.model, c.effort, body["max_tokens"], c.maxTokens)
			}
			if got := mustJSONAny(body["thinking"]); got != mustJSONAny(c.thinking) {
				t.Errorf("%s %q: thinking %s, want %s", c.model, c.effort, got, mustJSONAny(c.thinking))
			}
			oc, _ := body["output_config"].(map[string]any)
			if oc["effort"] != c.effortSent {
				t.Errorf("%s %q: effort %v, want %v", c.model, c.effort, oc["effort"], c.effortSent)
			}
		}
	}
	// A max_tokens the caller chose is kept.
	req := &engine.ChatRequest{Model: "claude-opus-5", APIKey: "k", MaxTokens: intp(4000), Messages: []engine.Message{userMsg("hi")}}
	if body := sentBody(t, "anthropic", f, req); body["max_tokens"] != 4000.0 {
		t.Errorf("max_tokens 4000 sent as %v", body["max_tokens"])
	}
}

// claudeToolStep runs one step of a tool loop on model and returns the
// assistant turn and its tool results appended to msgs.
func claudeToolStep(t *testing.T, f *fake.Server, model string, msgs []engine.Message, stream bool, reply fake.Reply) []engine.Message {
	t.Helper()
	f.Enqueue(reply)
	m := anthropicModel(t, f, model)
	req := &engine.ChatRequest{Model: model, APIKey: "k", Messages: msgs, MaxTokens: intp(1000),
		Tools: []engine.Tool{weatherTool, {Type: "function", Function: engine.ToolFunction{Name: "t2"}}}}
	var calls []engine.ToolCall
	var text string
	if stream {
		s, err := m.ChatStream(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		a, err := collect(t, s)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		calls, text = a.calls, a.text
	} else {
		resp, err := m.Chat(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		calls, text = resp.Choices[0].Message.ToolCalls, engine.Completion(resp)
	}
	if len(calls) == 0 {
		return append(msgs, engine.Message{Role: "assistant", Content: engine.TextContent(text)})
	}
	asst := engine.Message{Role: "assistant", ToolCalls: calls}
	if text != "" {
		asst.Content = engine.TextContent(text)
	}
	msgs = append(msgs, asst)
	for _, tc := range calls {
		msgs = append(msgs, engine.Message{Role: "tool", ToolCallID: tc.ID, Content: engine.TextContent("result of " + tc.Function.Name)})
	}
	return msgs
}

// TestClaudeThinkingFollowsItsModel: the 5.5-era models tie thinking
// blocks to the model that produced them. A tool loop on one model sends
// its (interleaved) thinking back in the original order; when the thread
// moves to another Claude model mid-loop (a fallback, or a thread run on
// another pipe), the other model's thinking is not sent, and moving back
// sends the first model's blocks again.
func TestClaudeThinkingFollowsItsModel(t *testing.T) {
	for _, stream := range []bool{false, true} {
		f := fake.NewAnthropic()
		msgs := []engine.Message{userMsg("Weather in SF and NYC?")}
		calls := func(a, b string) fake.Reply {
			return fake.Reply{Reasoning: "Two cities.", Interleaved: true, Text: "Checking.",
				ToolCalls: []fake.ToolCall{{ID: a, Name: "get_weather", Arguments: `{"loc":"SF"}`}, {ID: b, Name: "t2"}}}
		}
		msgs = claudeToolStep(t, f, "claude-opus-5-5", msgs, stream, calls("toolu_1", "toolu_2"))
		// The same model goes on: its blocks come back, interleaved as made.
		msgs = claudeToolStep(t, f, "claude-opus-5-5", msgs, stream, calls("toolu_3", "toolu_4"))
		sent := string(f.LastRequest().Body)
		if strings.Count(sent, `"type":"thinking"`) != 2 {
			t.Errorf("stream=%v: the producing model should get its two thinking blocks back: %s", stream, sent)
		}
		// The thread moves to Sonnet 5.5 mid-loop, then to Claude Opus 5.
		msgs = claudeToolStep(t, f, "claude-sonnet-5-5", msgs, stream, calls("toolu_5", "toolu_6"))
		if sent := string(f.LastRequest().Body); strings.Contains(sent, `"type":"thinking"`) {
			t.Errorf("stream=%v: thinking of claude-opus-5-5 sent to claude-sonnet-5-5: %s", stream, sent)
		}
		msgs = claudeToolStep(t, f, "claude-opus-5", msgs, stream, calls("toolu_7", "toolu_8"))
		msgs = claudeToolStep(t, f, "claude-opus-5-5", msgs, stream, fake.Reply{Text: "Sunny in both."})
		if got := msgs[len(msgs)-1].Content.String(); got != "Sunny in both." {
			t.Errorf("stream=%v: final answer %q", stream, got)
		}
		sent = string(f.LastRequest().Body)
		if n := strings.Count(sent, `"type":"thinking"`); n != 4 {
			t.Errorf("stream=%v: back on claude-opus-5-5, its own 4 thinking blocks (and no other) should be sent, got %d: %s", stream, n, sent)
		}
		f.Close()
	}
}

// TestAnthropicUsageDetails: thinking tokens are reported as reasoning
// tokens (Anthropic counts them in output_tokens without a breakdown, so
// they are the output beyond the visible answer), cache reads as cached
// prompt tokens, and cost prices cache reads at a tenth of the input price.
func TestAnthropicUsageDetails(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "It is sunny.", Usage: fake.Usage{PromptTokens: 200, CompletionTokens: 5, CacheReadTokens: 800}})
	for _, stream := range []bool{false, true} {
		m := anthropicModel(t, f, "claude-opus-5")
		req := &engine.ChatRequest{Model: "claude-opus-5", APIKey: "k", MaxTokens: intp(4000), Messages: []engine.Message{userMsg("hi")}}
		_, u := callOnce(t, m, req, stream)
		if u == nil || u.PromptTokens != 1000 || u.CompletionTokens != 1205 || u.CompletionTokensDetails == nil ||
			u.CompletionTokensDetails.ReasoningTokens != 1202 || u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens != 800 {
			t.Fatalf("stream=%v: usage %+v %+v %+v", stream, u, u.CompletionTokensDetails, u.PromptTokensDetails)
		}
		usd, ok := providers.CostOf(engine.ModelRef{Provider: "anthropic", Model: "claude-opus-5"}, u)
		if want := (200*5.0 + 800*0.5 + 1205*25.0) / 1e6; !ok || !near(usd, want) {
			t.Errorf("stream=%v: cost %v, want %v", stream, usd, want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestAnthropicBetaHeader: the custom model parameter anthropic_beta is
// sent as the anthropic-beta header (the body, where the API refuses it,
// does not carry it).
func TestAnthropicBetaHeader(t *testing.T) {
	f := fake.NewAnthropic()
	defer f.Close()
	f.SetDefault(fake.Reply{Text: "ok"})
	for _, raw := range []string{`["context-1m-2025-08-07","mid-conversation-tool-changes-2026-07-01"]`, `"context-1m-2025-08-07,mid-conversation-tool-changes-2026-07-01"`} {
		req := &engine.ChatRequest{Model: "claude-sonnet-4-5", APIKey: "k", Messages: []engine.Message{userMsg("hi")},
			Extra: map[string]json.RawMessage{"anthropic_beta": json.RawMessage(raw)}}
		body := sentBody(t, "anthropic", f, req)
		if h := f.LastRequest().Header.Get("anthropic-beta"); h != "context-1m-2025-08-07,mid-conversation-tool-changes-2026-07-01" {
			t.Errorf("%s: anthropic-beta %q", raw, h)
		}
		if _, ok := body["anthropic_beta"]; ok {
			t.Errorf("%s: anthropic_beta sent in the body", raw)
		}
	}
	m := anthropicModel(t, f, "claude-sonnet-4-5")
	_, err := m.Chat(context.Background(), &engine.ChatRequest{Model: "claude-sonnet-4-5", APIKey: "k", Messages: []engine.Message{userMsg("hi")},
		Extra: map[string]json.RawMessage{"anthropic_beta": json.RawMessage(`7`)}})
	if e := asEngine(t, err); e.Code != engine.CodeBadRequest || !strings.Contains(e.Message, "anthropic_beta") {
		t.Errorf("a malformed anthropic_beta: %v", err)
	}
}

// TestAnthropicStrictFakeRejects proves the Anthropic fake strict: what
// the real API refuses (unknown fields at any level, the 5.5-era rules,
// an unanswered tool_use) it answers 400 with the API's message.
func TestAnthropicStrictFakeRejects(t *testing.T) {
	user := `{"role":"user","content":"x"}`
	cases := []struct{ body, want string }{
		{`{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[` + user + `],"seed":7}`, `seed: Extra inputs are not permitted`},
		{`{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"x","extra_content":{}}]}]}`, `messages[0].content[0].extra_content: Extra inputs`},
		{`{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[` + user + `],"tools":[{"name":"f","input_schema":{},"parameters":{}}]}`, `tools[0].parameters: Extra inputs`},
		{`{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[` + user + `],"tools":[{"name":"f","input_schema":{}}],"tool_choice":{"type":"tool","function":{"name":"f"}}}`, `tool_choice.function: Extra inputs`},
		{`{"model":"claude-opus-5-5","max_tokens":10,"messages":[` + user + `],"tools":[{"name":"f","input_schema":{}}],"tool_choice":{"type":"any"}}`, `forced tool use is not supported`},
		{`{"model":"claude-fable-5-1","max_tokens":10,"messages":[` + user + `],"thinking":{"type":"disabled"}}`, `thinking.type.disabled\" is not supported for this model`},
		{`{"model":"claude-opus-5","max_tokens":10,"messages":[` + user + `],"tools":[{"name":"f","input_schema":{}}],"tool_choice":{"type":"any"}}`, `Thinking may not be enabled when tool_choice forces tool use`},
		{`{"model":"claude-opus-5","max_tokens":10,"messages":[` + user + `],"thinking":{"type":"disabled"},"output_config":{"effort":"max"}}`, `only supported at effort high or below`},
		{`{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[` + user + `,{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},` + user + `]}`, "`tool_use` ids were found without `tool_result` blocks immediately after: t1"},
		{`{"model":"claude-opus-5-5","max_tokens":10,"messages":[` + user + `,{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"forged"},{"type":"text","text":"hi"}]},` + user + `]}`, "Invalid `signature`"},
	}
	f := fake.NewAnthropic()
	defer f.Close()
	for _, c := range cases {
		resp, err := f.Client().Post(f.BaseURL()+"/messages", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 4096)
		n, _ := resp.Body.Read(b)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b[:n]), c.want) {
			t.Errorf("%s: %d %s, want 400 with %q", c.body, resp.StatusCode, b[:n], c.want)
		}
	}
	// A thinking block goes back to another 5.5-era model: refused.
	f.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "toolu_x", Name: "get_weather"}}})
	resp, err := anthropicModel(t, f, "claude-opus-5-5").Chat(context.Background(), &engine.ChatRequest{Model: "claude-opus-5-5", APIKey: "k",
		MaxTokens: intp(5000), Messages: []engine.Message{userMsg("w?")}, Tools: []engine.Tool{weatherTool}})
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		Anthropic struct {
			Thinking []json.RawMessage `json:"thinking"`
		} `json:"anthropic"`
	}
	json.Unmarshal(resp.Choices[0].Message.ToolCalls[0].ExtraContent, &x)
	echo := `{"model":"claude-sonnet-5-5","max_tokens":5000,"messages":[` + user + `,{"role":"assistant","content":[` + string(x.Anthropic.Thinking[0]) +
		`,{"type":"tool_use","id":"toolu_x","name":"get_weather","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"21C"}]}]}`
	r, err := f.Client().Post(f.BaseURL()+"/messages", "application/json", strings.NewReader(echo))
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4096)
	n, _ := r.Body.Read(b)
	r.Body.Close()
	if r.StatusCode != 400 || !strings.Contains(string(b[:n]), "thinking blocks can only be sent back to the model that produced them") {
		t.Errorf("thinking of claude-opus-5-5 echoed to claude-sonnet-5-5: %d %s", r.StatusCode, b[:n])
	}
}
