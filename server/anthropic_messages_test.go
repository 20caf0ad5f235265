package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

var weatherTool = map[string]any{"name": "get_weather", "description": "Weather of a city",
	"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}}

// TestMessagesAnthropicToolTurn: a bare Claude name goes to the anthropic
// provider with system blocks, thinking, top_k and metadata passed on;
// the answer's thinking block (with its signature) and tool_use come back
// in Anthropic's shape; the next turn's tool_result reaches the upstream
// with the thinking block before the tool_use, as the API requires (the
// fake refuses the turn otherwise).
func TestMessagesAnthropicToolTurn(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	up.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-ant-test"))
	up.Enqueue(fake.Reply{Reasoning: "Paris: look it up.", ToolCalls: []fake.ToolCall{{ID: "toolu_01", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
	first := msgReq("claude-sonnet-4-5", "Weather in Paris?",
		"system", []any{map[string]any{"type": "text", "text": "Be brief."}, map[string]any{"type": "text", "text": "Use tools.", "cache_control": map[string]any{"type": "ephemeral"}}},
		"thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}, "top_k", 5, "metadata", map[string]any{"user_id": "u-1"},
		"tools", []any{weatherTool}, "max_tokens", 2048)
	r := postMessages(ts, admin, first)
	mustStatus(t, r, 200)
	var out msgResponse
	r.JSON(t, &out)
	if r.Header.Get(server.HeaderModel) != "anthropic:claude-sonnet-4-5" || out.Type != "message" || out.Role != "assistant" || out.Model != "claude-sonnet-4-5" || !strings.HasPrefix(out.ID, "msg_") {
		t.Fatalf("answer: %v %s", r.Header, r.Body)
	}
	if len(out.Content) != 2 || out.Content[0]["type"] != "thinking" || out.Content[0]["thinking"] != "Paris: look it up." || out.Content[0]["signature"] == "" ||
		out.Content[1]["type"] != "tool_use" || out.Content[1]["id"] != "toolu_01" || out.Content[1]["name"] != "get_weather" ||
		mustJSON(t, out.Content[1]["input"]) != `{"city":"Paris"}` || out.StopReason != "tool_use" {
		t.Fatalf("content: %s", r.Body)
	}
	// Thinking is billed as output: the fake adds what it spent thinking
	// to the answer's own output tokens.
	if out.Usage["input_tokens"] != fake.DefaultUsage.PromptTokens || out.Usage["output_tokens"] <= fake.DefaultUsage.CompletionTokens {
		t.Fatalf("usage: %s", r.Body)
	}
	sent := up.LastRequest().JSON()
	if sent["model"] != "claude-sonnet-4-5" || mustJSON(t, sent["system"]) != `[{"text":"Be brief.","type":"text"},{"cache_control":{"type":"ephemeral"},"text":"Use tools.","type":"text"}]` || sent["max_tokens"] != 2048.0 || sent["top_k"] != 5.0 ||
		mustJSON(t, sent["thinking"]) != `{"budget_tokens":1024,"type":"enabled"}` || mustJSON(t, sent["metadata"]) != `{"user_id":"u-1"}` {
		t.Fatalf("upstream request: %s", up.LastRequest().Body)
	}
	if tools := sent["tools"].([]any); len(tools) != 1 || mustJSON(t, tools[0].(map[string]any)["input_schema"]) != mustJSON(t, weatherTool["input_schema"]) {
		t.Fatalf("upstream tools: %s", up.LastRequest().Body)
	}

	up.Enqueue(fake.Reply{Text: "Sunny, 18°C."})
	second := msgReq("claude-sonnet-4-5", "", "thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}, "tools", []any{weatherTool}, "max_tokens", 2048)
	second["messages"] = []any{
		map[string]any{"role": "user", "content": "Weather in Paris?"},
		map[string]any{"role": "assistant", "content": out.Content},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_01", "content": []any{map[string]any{"type": "text", "text": "18°C, sunny"}}}}},
	}
	r = postMessages(ts, admin, second)
	mustStatus(t, r, 200)
	r.JSON(t, &out)
	if len(out.Content) != 2 || out.Content[0]["type"] != "thinking" || out.Content[1]["text"] != "Sunny, 18°C." || out.StopReason != "end_turn" {
		t.Fatalf("second answer: %s", r.Body)
	}
	var turn struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(up.LastRequest().Body, &turn)
	if len(turn.Messages) != 3 {
		t.Fatalf("upstream turn: %s", up.LastRequest().Body)
	}
	a, u := turn.Messages[1], turn.Messages[2]
	if a.Role != "assistant" || len(a.Content) != 2 || a.Content[0]["type"] != "thinking" || a.Content[0]["signature"] == "" ||
		a.Content[1]["type"] != "tool_use" || a.Content[1]["id"] != "toolu_01" {
		t.Fatalf("upstream assistant turn: %s", up.LastRequest().Body)
	}
	if u.Role != "user" || len(u.Content) != 1 || u.Content[0]["type"] != "tool_result" || u.Content[0]["tool_use_id"] != "toolu_01" || u.Content[0]["content"] != "18°C, sunny" {
		t.Fatalf("upstream tool result: %s", up.LastRequest().Body)
	}
}

// TestMessagesOpenAIUpstream: a Messages call to an OpenAI model keeps the
// tool call's id both ways, sends images as image_url parts, stop
// sequences as stop, and names in lb-warning the fields only Anthropic
// takes (thinking, top_k), which are not sent.
func TestMessagesOpenAIUpstream(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	up.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_abc", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}})
	img := map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
	body := msgReq("openai:gpt-4o-mini", "", "tools", []any{weatherTool}, "tool_choice", map[string]any{"type": "any"},
		"stop_sequences", []string{"END"}, "temperature", 0.5, "top_k", 3, "thinking", map[string]any{"type": "enabled", "budget_tokens": 2000})
	body["messages"] = []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Weather here?"}, img}}}
	r := postMessages(ts, admin, body)
	mustStatus(t, r, 200)
	if w := r.Header.Get(server.HeaderWarning); !strings.Contains(w, "thinking and top_k ignored") {
		t.Fatalf("warning %q", w)
	}
	var out msgResponse
	r.JSON(t, &out)
	if len(out.Content) != 1 || out.Content[0]["id"] != "call_abc" || mustJSON(t, out.Content[0]["input"]) != `{"city":"Oslo"}` || out.StopReason != "tool_use" {
		t.Fatalf("answer: %s", r.Body)
	}
	sent := up.LastRequest().JSON()
	if _, ok := sent["top_k"]; ok {
		t.Fatalf("top_k sent to OpenAI: %s", up.LastRequest().Body)
	}
	if _, ok := sent["thinking"]; ok {
		t.Fatalf("thinking sent to OpenAI: %s", up.LastRequest().Body)
	}
	if mustJSON(t, sent["stop"]) != `["END"]` || sent["temperature"] != 0.5 || sent["tool_choice"] != "required" ||
		!strings.Contains(string(up.LastRequest().Body), `"url":"data:image/png;base64,iVBORw0KGgo="`) {
		t.Fatalf("upstream request: %s", up.LastRequest().Body)
	}

	up.Enqueue(fake.Reply{Text: "Cold."})
	body["messages"] = append(body["messages"].([]any),
		map[string]any{"role": "assistant", "content": out.Content},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "call_abc", "content": "-3°C"}}})
	body["tool_choice"] = map[string]any{"type": "auto"}
	r = postMessages(ts, admin, body)
	mustStatus(t, r, 200)
	r.JSON(t, &out)
	if len(out.Content) != 1 || out.Content[0]["type"] != "text" || out.Content[0]["text"] != "Cold." || out.StopReason != "end_turn" {
		t.Fatalf("second answer: %s", r.Body)
	}
	var turn struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	json.Unmarshal(up.LastRequest().Body, &turn)
	if n := len(turn.Messages); n != 3 || turn.Messages[1].ToolCalls[0].ID != "call_abc" || turn.Messages[1].ToolCalls[0].Function.Arguments != `{"city":"Oslo"}` ||
		turn.Messages[2].Role != "tool" || turn.Messages[2].ToolCallID != "call_abc" || turn.Messages[2].Content != "-3°C" {
		t.Fatalf("upstream turn: %s", up.LastRequest().Body)
	}
}

// TestMessagesGeminiSignatureRoundTrip: a Gemini 3 tool call's thought
// signature travels inside the tool_use id and reaches Gemini again with
// the tool result (the fake refuses a call without it).
func TestMessagesGeminiSignatureRoundTrip(t *testing.T) {
	up := fake.NewGemini()
	t.Cleanup(up.Close)
	up.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("google", up.BaseURL(), "g-test"))
	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{Name: "get_weather", Arguments: `{"city":"Rome"}`}}})
	// Gemini 3 thinks by default out of max_tokens (4096 at level high on
	// the fake), so the call leaves room for the answer.
	body := msgReq("google:gemini-3-flash-preview", "Weather in Rome?", "tools", []any{weatherTool}, "max_tokens", 8192)
	r := postMessages(ts, admin, body)
	mustStatus(t, r, 200)
	var out msgResponse
	r.JSON(t, &out)
	if len(out.Content) != 1 || out.Content[0]["type"] != "tool_use" || !strings.HasPrefix(out.Content[0]["id"].(string), "hxtc_") {
		t.Fatalf("answer: %s", r.Body)
	}
	up.Enqueue(fake.Reply{Text: "Warm."})
	body["messages"] = append(body["messages"].([]any),
		map[string]any{"role": "assistant", "content": out.Content},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": out.Content[0]["id"], "content": "25°C"}}})
	r = postMessages(ts, admin, body)
	mustStatus(t, r, 200)
	if !strings.Contains(string(up.LastRequest().Body), "thoughtSignature") {
		t.Fatalf("signature not sent back: %s", up.LastRequest().Body)
	}
}

// TestMessagesAliases: the alias table maps Claude Code's bare names
// (and their dated ids) to a local OpenAI-compatible server's models,
// "*" catches any other bare name, unmapped claude-* names go to the
// anthropic provider, and the answer names the model asked for.
func TestMessagesAliases(t *testing.T) {
	local := fake.NewOpenAI()
	t.Cleanup(local.Close)
	local.SetRecording(true)
	ant := fake.NewAnthropic()
	t.Cleanup(ant.Close)
	ant.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("ollama", local.BaseURL(), ""), servertest.WithProvider("anthropic", ant.BaseURL(), "sk-ant"),
		servertest.WithConfig(func(c *server.Config) {
			c.AnthropicModelAliases = map[string]string{"claude-haiku-4-5": "ollama:qwen3:8b", "sonnet": "ollama:qwen3-coder"}
		}))
	for model, want := range map[string]string{"claude-haiku-4-5": "qwen3:8b", "claude-haiku-4-5-20251001": "qwen3:8b", "sonnet": "qwen3-coder"} {
		r := postMessages(ts, admin, msgReq(model, "hi"))
		mustStatus(t, r, 200)
		var out msgResponse
		r.JSON(t, &out)
		if got := local.LastRequest().JSON()["model"]; got != want || out.Model != model || r.Header.Get(server.HeaderModel) != "ollama:"+want {
			t.Fatalf("%s: upstream model %v, answer %s, lb-model %s", model, got, r.Body, r.Header.Get(server.HeaderModel))
		}
	}
	r := postMessages(ts, admin, msgReq("claude-opus-4-7", "hi"))
	mustStatus(t, r, 200)
	if got := ant.LastRequest().JSON()["model"]; got != "claude-opus-4-7" {
		t.Fatalf("claude name went to %v", got)
	}
	r = postMessages(ts, admin, msgReq("gpt-oss", "hi"))
	var e msgError
	r.JSON(t, &e)
	if r.Status != 404 || e.Type != "error" || e.Error.Type != "not_found_error" || !strings.Contains(e.Error.Message, "HEARTH_ANTHROPIC_MODEL_ALIASES") {
		t.Fatalf("unmapped bare name: %d %s", r.Status, r.Body)
	}

	all := servertest.Start(t, servertest.WithProvider("ollama", local.BaseURL(), ""),
		servertest.WithConfig(func(c *server.Config) { c.AnthropicModelAliases = map[string]string{"*": "ollama:qwen3-coder"} }))
	for _, model := range []string{"claude-sonnet-4-5-20250929", "gpt-oss"} {
		mustStatus(t, postMessages(all, admin, msgReq(model, "hi")), 200)
		if got := local.LastRequest().JSON()["model"]; got != "qwen3-coder" {
			t.Fatalf("%s under *: upstream model %v", model, got)
		}
	}
}
