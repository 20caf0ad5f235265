package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// cachedReq is a Messages request with cache_control breakpoints on a
// system block, a tool, a user block and a tool result.
func cachedReq(model string, stream bool) map[string]any {
	eph := map[string]any{"type": "ephemeral"}
	tool := map[string]any{"name": "get_weather", "description": "Weather of a city", "cache_control": eph,
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}
	return map[string]any{"model": model, "max_tokens": 1024, "stream": stream, "tools": []any{tool},
		"system": []any{map[string]any{"type": "text", "text": "You are terse."},
			map[string]any{"type": "text", "text": "Long reference text.", "cache_control": eph}},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "A long document.", "cache_control": map[string]any{"type": "ephemeral", "ttl": "1h"}},
				map[string]any{"type": "text", "text": "Weather in Lyon?"}}},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Lyon"}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny", "cache_control": eph}}},
		}}
}

// TestMessagesCacheControl: cache_control breakpoints on system blocks,
// tools, message blocks and tool results reach an Anthropic model on the
// blocks they mark, and the cache reads and writes come back in usage,
// plain and streamed; more than four breakpoints are the upstream's 400,
// and a malformed one is refused naming the field.
func TestMessagesCacheControl(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-ant"))
	usage := fake.Usage{PromptTokens: 7, CompletionTokens: 4, CacheReadTokens: 100, CacheCreationTokens: 20}
	const wantUsage = `{"cache_creation_input_tokens":20,"cache_read_input_tokens":100,"input_tokens":7,"output_tokens":4}`

	up.Enqueue(fake.Reply{Text: "Sunny.", Usage: usage})
	r := postMessages(ts, admin, cachedReq("claude-sonnet-4-5", false))
	mustStatus(t, r, 200)
	var res msgResponse
	r.JSON(t, &res)
	if got := mustJSON(t, res.Usage); got != wantUsage {
		t.Fatalf("usage %s", got)
	}
	body := up.LastRequest().JSON()
	want := []struct{ path, got, want string }{
		{"system", mustJSON(t, body["system"]), `[{"text":"You are terse.","type":"text"},{"cache_control":{"type":"ephemeral"},"text":"Long reference text.","type":"text"}]`},
		{"tools[0].cache_control", mustJSON(t, body["tools"].([]any)[0].(map[string]any)["cache_control"]), `{"type":"ephemeral"}`},
	}
	msgs := body["messages"].([]any)
	user := msgs[0].(map[string]any)["content"].([]any)
	want = append(want, struct{ path, got, want string }{"messages[0].content", mustJSON(t, user),
		`[{"cache_control":{"ttl":"1h","type":"ephemeral"},"text":"A long document.","type":"text"},{"text":"Weather in Lyon?","type":"text"}]`})
	result := msgs[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	want = append(want, struct{ path, got, want string }{"messages[2].content[0].cache_control", mustJSON(t, result["cache_control"]), `{"type":"ephemeral"}`})
	for _, w := range want {
		if w.got != w.want {
			t.Errorf("upstream %s\n got %s\nwant %s", w.path, w.got, w.want)
		}
	}

	up.Enqueue(fake.Reply{Text: "Sunny.", Usage: usage})
	r = postMessages(ts, admin, cachedReq("claude-sonnet-4-5", true))
	mustStatus(t, r, 200)
	evs := parseMsgEvents(t, r.Body)
	if md := evs[len(evs)-2]; md.Name != "message_delta" || mustJSON(t, md.Data["usage"]) != wantUsage {
		t.Fatalf("message_delta %v", md.Data)
	}

	five := cachedReq("claude-sonnet-4-5", false)
	five["messages"].([]any)[0].(map[string]any)["content"].([]any)[1].(map[string]any)["cache_control"] = map[string]any{"type": "ephemeral"}
	r = postMessages(ts, admin, five)
	mustStatus(t, r, 400)
	var e msgError
	r.JSON(t, &e)
	if e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, "maximum of 4 blocks with cache_control") {
		t.Fatalf("five breakpoints: %+v", e)
	}

	bad := cachedReq("claude-sonnet-4-5", false)
	bad["tools"].([]any)[0].(map[string]any)["cache_control"] = map[string]any{"type": "persistent"}
	n := up.Count()
	r = postMessages(ts, admin, bad)
	mustStatus(t, r, 400)
	r.JSON(t, &e)
	if !strings.Contains(e.Error.Message, "tools[0].cache_control") || up.Count() != n {
		t.Fatalf("bad cache_control: %+v (upstream called %d times)", e, up.Count()-n)
	}
}

// TestMessagesCacheControlDroppedElsewhere: a provider without
// Anthropic's prompt cache gets the request without its breakpoints (the
// strict OpenAI fake refuses unknown fields), the system prompt as one
// string.
func TestMessagesCacheControlDroppedElsewhere(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	r := postMessages(ts, admin, cachedReq("openai:gpt-4o-mini", false))
	mustStatus(t, r, 200)
	req := up.LastRequest()
	if strings.Contains(string(req.Body), "cache_control") {
		t.Fatalf("cache_control sent to OpenAI: %s", req.Body)
	}
	msgs := req.JSON()["messages"].([]any)
	if got := mustJSON(t, msgs[0]); got != `{"content":"You are terse.\n\nLong reference text.","role":"system"}` {
		t.Fatalf("system message %s", got)
	}
	if got := mustJSON(t, msgs[1].(map[string]any)["content"]); got != `"A long document.\n\nWeather in Lyon?"` {
		t.Fatalf("user content %s", got)
	}
}

// TestMessagesBetaHeader: the anthropic-beta header reaches an Anthropic
// model's upstream as sent (both lines of a repeated header); another
// provider does not get it.
func TestMessagesBetaHeader(t *testing.T) {
	ant := fake.NewAnthropic()
	t.Cleanup(ant.Close)
	oai := fake.NewOpenAI()
	t.Cleanup(oai.Close)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", ant.BaseURL(), "sk-ant"), servertest.WithProvider("openai", oai.BaseURL(), "sk-oai"))
	r := postMessages(ts, admin, msgReq("claude-sonnet-4-5", "hi"), "anthropic-beta", "context-1m-2025-08-07, interleaved-thinking-2025-05-14")
	mustStatus(t, r, 200)
	if got := ant.LastRequest().Header.Get("anthropic-beta"); got != "context-1m-2025-08-07,interleaved-thinking-2025-05-14" {
		t.Fatalf("anthropic-beta upstream %q", got)
	}
	r = postMessages(ts, admin, msgReq("claude-sonnet-4-5", "hi", "stream", true), "anthropic-beta", "context-1m-2025-08-07")
	mustStatus(t, r, 200)
	if got := ant.LastRequest().Header.Get("anthropic-beta"); got != "context-1m-2025-08-07" {
		t.Fatalf("anthropic-beta upstream (stream) %q", got)
	}
	r = postMessages(ts, admin, msgReq("claude-sonnet-4-5", "hi"))
	mustStatus(t, r, 200)
	if got := ant.LastRequest().Header.Values("anthropic-beta"); len(got) != 0 {
		t.Fatalf("anthropic-beta without one asked: %q", got)
	}
	r = postMessages(ts, admin, msgReq("openai:gpt-4o-mini", "hi"), "anthropic-beta", "context-1m-2025-08-07")
	mustStatus(t, r, 200)
	if req := oai.LastRequest(); req.Header.Get("anthropic-beta") != "" || strings.Contains(string(req.Body), "anthropic_beta") {
		t.Fatalf("anthropic-beta sent to openai: %v %s", req.Header, req.Body)
	}
}

// TestMessagesSystemRoleMessage: a system message among the messages (as
// Claude Code sends one) joins the system prompt of an Anthropic model,
// with its breakpoint, and stays a system message for other providers.
func TestMessagesSystemRoleMessage(t *testing.T) {
	ant := fake.NewAnthropic()
	t.Cleanup(ant.Close)
	oai := fake.NewOpenAI()
	t.Cleanup(oai.Close)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", ant.BaseURL(), "sk-ant"), servertest.WithProvider("openai", oai.BaseURL(), "sk-oai"))
	msgs := []any{map[string]any{"role": "user", "content": "hi"},
		map[string]any{"role": "system", "content": []any{map[string]any{"type": "text", "text": "Context.", "cache_control": map[string]any{"type": "ephemeral"}}}}}
	r := postMessages(ts, admin, map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 64, "system": "Be brief.", "messages": msgs})
	mustStatus(t, r, 200)
	if got := mustJSON(t, ant.LastRequest().JSON()["system"]); got != `[{"text":"Be brief.","type":"text"},{"cache_control":{"type":"ephemeral"},"text":"Context.","type":"text"}]` {
		t.Fatalf("system %s", got)
	}
	r = postMessages(ts, admin, map[string]any{"model": "openai:gpt-4o-mini", "max_tokens": 64, "messages": msgs})
	mustStatus(t, r, 200)
	if got := mustJSON(t, oai.LastRequest().JSON()["messages"]); got != `[{"content":"hi","role":"user"},{"content":"Context.","role":"system"}]` {
		t.Fatalf("messages %s", got)
	}
	r = postMessages(ts, admin, map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": []any{map[string]any{"role": "system",
		"content": []any{map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}}}}}})
	mustStatus(t, r, 400)
	var e msgError
	r.JSON(t, &e)
	if !strings.Contains(e.Error.Message, "messages[0].content[0].type") {
		t.Fatalf("image in a system message: %+v", e)
	}
}
