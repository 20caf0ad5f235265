package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestPipeToolsEffortRule: models that take function tools only with
// reasoning_effort "none" get it in pipe runs too, and when they answer
// as a fallback of another model; the strict fake refuses anything else.
func TestPipeToolsEffortRule(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	key := servertest.AdminKey
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{}}}}}
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "gpt6", "model": "openai:gpt-6-sol", "tools": tools}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "falls", "model": "openai:gpt-4o-mini", "tools": tools,
		"fallback_models": []string{"openai:gpt-5.6-terra"}}), 200)

	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "gpt6", "messages": userMsg("weather?")})
	mustStatus(t, r, 200)
	body := up.LastRequest().JSON()
	if body["reasoning_effort"] != "none" || body["temperature"] != nil || body["stop"] != nil {
		t.Fatalf("gpt-6 pipe run sent %v", body)
	}

	// The primary is down (every attempt 503): the fallback gets "none".
	up.Enqueue(fake.Reply{Status: 503}, fake.Reply{Status: 503}, fake.Reply{Status: 503})
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "falls", "messages": userMsg("weather?")})
	mustStatus(t, r, 200)
	body = up.LastRequest().JSON()
	if body["model"] != "gpt-5.6-terra" || body["reasoning_effort"] != "none" {
		t.Fatalf("fallback sent model %v reasoning_effort %v", body["model"], body["reasoning_effort"])
	}
}

// TestAnthropicCachedCost: a pipe run whose Claude answer read most of
// its prompt from the prompt cache is priced with those tokens at a
// tenth of the input price, and the run record says how many they were.
func TestAnthropicCachedCost(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	up.SetDefault(fake.Reply{Text: "ok", Usage: fake.Usage{PromptTokens: 200, CompletionTokens: 10, CacheReadTokens: 800}})
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-test"))
	key := servertest.AdminKey
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "cached", "model": "anthropic:claude-sonnet-4-5"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "cached", "messages": userMsg("hi")}), 200)
	ts.RunLog.Flush()
	page, err := ts.RunLog.List(context.Background(), "admin", "", 10, "")
	if err != nil || len(page.Runs) != 1 {
		t.Fatalf("runs: %v %+v", err, page)
	}
	run := page.Runs[0]
	want := (200*3 + 800*0.3 + 10*15.0) / 1e6
	if run.CachedTokens != 800 || run.CostUSD == nil || *run.CostUSD-want > 1e-12 || want-*run.CostUSD > 1e-12 {
		t.Fatalf("run cached_tokens %d cost %v, want 800 and %v", run.CachedTokens, run.CostUSD, want)
	}
}

// TestAnthropicCacheWriteCost: a pipe run on Claude Haiku 5.5 whose
// prompt passes the 100,000-token tier and that wrote to the prompt cache
// is priced at the tier, with five-minute writes at 1.25 and one-hour
// writes at 2 times its prompt price and reads at 0.1.
func TestAnthropicCacheWriteCost(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	up.SetDefault(fake.Reply{Text: "ok", Usage: fake.Usage{PromptTokens: 10_000, CompletionTokens: 100,
		CacheReadTokens: 50_000, CacheCreationTokens: 60_000, CacheCreation1hTokens: 20_000}})
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-test"))
	key := servertest.AdminKey
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "haiku", "model": "anthropic:claude-haiku-5-5"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "haiku", "messages": userMsg("hi")}), 200)
	ts.RunLog.Flush()
	page, err := ts.RunLog.List(context.Background(), "admin", "", 10, "")
	if err != nil || len(page.Runs) != 1 {
		t.Fatalf("runs: %v %+v", err, page)
	}
	run := page.Runs[0]
	want := (0.5*(10_000+50_000*0.1+40_000*1.25+20_000*2) + 2.5*float64(run.CompletionTokens)) / 1e6
	if run.CostUSD == nil || *run.CostUSD-want > 1e-12 || want-*run.CostUSD > 1e-12 {
		t.Fatalf("run cost %v, want %v (completion tokens %d)", *run.CostUSD, want, run.CompletionTokens)
	}
}

// TestClaudeFallbackMidToolLoop: a pipe on Claude Opus 5.5 calls a tool
// (with thinking); when its tool result comes back the primary is down
// and Sonnet 5.5 answers as the fallback. Opus's thinking, which the
// 5.5-era models accept only from themselves, is not sent to Sonnet (the
// strict fake refuses it), and the tool call and its result are.
func TestClaudeFallbackMidToolLoop(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-test"))
	key := servertest.AdminKey
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"loc": map[string]any{"type": "string"}}}}}}
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "claude", "model": "anthropic:claude-opus-5-5", "tools": tools,
		"fallback_models": []string{"anthropic:claude-sonnet-5-5"}}), 200)

	up.Enqueue(fake.Reply{Reasoning: "Need the weather.", ToolCalls: []fake.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"loc":"SF"}`}}})
	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "claude", "messages": userMsg("Weather in SF?")})
	mustStatus(t, r, 200)
	thread := r.Header.Get("lb-thread-id")
	if thread == "" || !strings.Contains(string(r.Body), "toolu_1") {
		t.Fatalf("first run: %v %s", r.Header, r.Body)
	}

	up.Enqueue(fake.Reply{Status: 503}, fake.Reply{Status: 503}, fake.Reply{Status: 503}, fake.Reply{Text: "Sunny in SF."})
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "claude", "threadId": thread,
		"messages": []any{map[string]any{"role": "tool", "tool_call_id": "toolu_1", "content": "21C"}}})
	mustStatus(t, r, 200)
	if !strings.Contains(string(r.Body), "Sunny in SF.") {
		t.Fatalf("fallback answer: %s", r.Body)
	}
	last := up.LastRequest()
	body := string(last.Body)
	if last.JSON()["model"] != "claude-sonnet-5-5" || strings.Contains(body, `"type":"thinking"`) || !strings.Contains(body, `"tool_use_id":"toolu_1"`) {
		t.Fatalf("fallback request: %s", body)
	}
}
