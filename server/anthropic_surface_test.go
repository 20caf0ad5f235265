package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMessagesCountTokens: a Claude model's count comes from Anthropic
// (the request passed on with the fields count_tokens takes, the model's
// own id and anthropic-beta; lb-token-count: anthropic); any other
// model's is an estimate that grows with the text and counts images
// (lb-token-count: estimate). Bad input is refused as on messages.
func TestMessagesCountTokens(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	up.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-ant"),
		servertest.WithConfig(func(c *server.Config) { c.AnthropicModelAliases = map[string]string{"claude-haiku-4-5": "hearth:echo"} }))
	count := func(body map[string]any, headers ...string) (int, string) {
		t.Helper()
		delete(body, "max_tokens")
		r := ts.Do("POST", "/anthropic/v1/messages/count_tokens", "", body, append([]string{"x-api-key", admin}, headers...)...)
		mustStatus(t, r, 200)
		var out struct {
			InputTokens int `json:"input_tokens"`
		}
		r.JSON(t, &out)
		return out.InputTokens, r.Header.Get(server.HeaderTokenCount)
	}
	n, how := count(msgReq("claude-sonnet-4-5", "How many tokens is this?", "system", "Be brief.", "tools", []any{weatherTool}),
		"anthropic-beta", "token-counting-2024-11-01")
	sent := up.LastRequest()
	if how != "anthropic" || n != len(sent.Body) || sent.Path != "/v1/messages/count_tokens" || sent.Header.Get("anthropic-beta") != "token-counting-2024-11-01" ||
		sent.Header.Get("x-api-key") != "sk-ant" {
		t.Fatalf("anthropic count %d (%s), upstream %s %v %s", n, how, sent.Path, sent.Header, sent.Body)
	}
	if m := sent.JSON(); m["model"] != "claude-sonnet-4-5" || m["system"] != "Be brief." || m["tools"] == nil {
		t.Fatalf("upstream body %s", sent.Body)
	}

	short, how := count(msgReq("claude-haiku-4-5", "hi"))
	long, _ := count(msgReq("claude-haiku-4-5", strings.Repeat("many words here ", 100)))
	if how != "estimate" || short <= 0 || long < short+300 {
		t.Fatalf("estimates %d, %d (%s)", short, long, how)
	}
	img := msgReq("hearth:echo", "")
	img["messages"] = []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}}}}}
	if n, _ := count(img); n < 1600 {
		t.Fatalf("image estimate %d", n)
	}
	r := ts.Do("POST", "/anthropic/v1/messages/count_tokens", "", map[string]any{"model": "claude-sonnet-4-5"}, "x-api-key", admin)
	var e msgError
	r.JSON(t, &e)
	if r.Status != 400 || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, "messages") {
		t.Fatalf("no messages: %d %s", r.Status, r.Body)
	}
}

// TestMessagesModels: GET /anthropic/v1/models lists the aliases first,
// Claude models by their bare names and the rest as provider:model, no
// embedding models, in Anthropic's page shape (limit, after_id,
// before_id, has_more, first_id, last_id); one model by id.
func TestMessagesModels(t *testing.T) {
	ts := servertest.Start(t, servertest.WithProvider("anthropic", "http://127.0.0.1:1/v1", "sk-ant"),
		servertest.WithConfig(func(c *server.Config) {
			c.AnthropicModelAliases = map[string]string{"claude-haiku-4-5": "hearth:echo", "*": "hearth:echo"}
		}))
	type page struct {
		Data []struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			DisplayName string `json:"display_name"`
			CreatedAt   string `json:"created_at"`
		} `json:"data"`
		HasMore bool    `json:"has_more"`
		FirstID *string `json:"first_id"`
		LastID  *string `json:"last_id"`
	}
	var all page
	r := ts.Do("GET", "/anthropic/v1/models?limit=1000", "", nil, "x-api-key", admin)
	mustStatus(t, r, 200)
	r.JSON(t, &all)
	ids := map[string]bool{}
	for _, m := range all.Data {
		ids[m.ID] = true
		if m.Type != "model" || strings.Contains(m.ID, "embed") || strings.HasPrefix(m.ID, "anthropic:") {
			t.Fatalf("entry %+v", m)
		}
		if _, err := time.Parse(time.RFC3339, m.CreatedAt); err != nil {
			t.Fatalf("created_at %q", m.CreatedAt)
		}
	}
	if all.Data[0].ID != "claude-haiku-4-5" || !ids["claude-sonnet-4-5"] || !ids["hearth:echo"] || ids["*"] || all.HasMore || *all.FirstID != "claude-haiku-4-5" {
		t.Fatalf("list %s", r.Body)
	}
	var p1, p2, p0 page
	ts.Do("GET", "/anthropic/v1/models?limit=2", admin, nil).JSON(t, &p1)
	if len(p1.Data) != 2 || !p1.HasMore || *p1.LastID != all.Data[1].ID {
		t.Fatalf("first page %+v", p1)
	}
	ts.Do("GET", "/anthropic/v1/models?limit=2&after_id="+*p1.LastID, admin, nil).JSON(t, &p2)
	if len(p2.Data) != 2 || p2.Data[0].ID != all.Data[2].ID {
		t.Fatalf("second page %+v", p2)
	}
	ts.Do("GET", "/anthropic/v1/models?limit=1&before_id="+p2.Data[0].ID, admin, nil).JSON(t, &p0)
	if len(p0.Data) != 1 || p0.Data[0].ID != all.Data[1].ID || !p0.HasMore {
		t.Fatalf("before page %+v", p0)
	}
	r = ts.Do("GET", "/anthropic/v1/models/claude-sonnet-4-5", admin, nil)
	if mustStatus(t, r, 200); !strings.Contains(string(r.Body), `"id":"claude-sonnet-4-5"`) {
		t.Fatalf("one model %s", r.Body)
	}
	for path, typ := range map[string]string{"/anthropic/v1/models/nosuch": "not_found_error", "/anthropic/v1/models?limit=0": "invalid_request_error"} {
		var e msgError
		r := ts.Do("GET", path, admin, nil)
		r.JSON(t, &e)
		if e.Type != "error" || e.Error.Type != typ {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
	}
}

// TestMessagesAuthAndErrors: a Hearth key works in x-api-key and as a
// bearer token; every refusal is Anthropic's error body with its status
// and type: no or a wrong key, a pipe key on a provider model, missing or
// bad fields, an unknown model, upstream errors (429, 500, 529), Hearth's
// own rate limit.
func TestMessagesAuthAndErrors(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-ant"))
	ok := msgReq("hearth:echo", "hi")
	mustStatus(t, postMessages(ts, admin, ok), 200)
	mustStatus(t, ts.Do("POST", "/anthropic/v1/messages", admin, ok), 200)
	r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "helper", "model": "hearth:echo"})
	mustStatus(t, r, 200)
	var pipe struct {
		APIKey string `json:"api_key"`
	}
	r.JSON(t, &pipe)
	if r := postMessages(ts, pipe.APIKey, msgReq("pipe:helper", "hello pipe")); r.Status != 200 || !strings.Contains(string(r.Body), "hello pipe") {
		t.Fatalf("pipe model with its key: %d %s", r.Status, r.Body)
	}
	noMax := msgReq("hearth:echo", "hi")
	delete(noMax, "max_tokens")
	cases := []struct {
		name, key string
		body      map[string]any
		reply     *fake.Reply
		status    int
		typ, msg  string
	}{
		{"no key", "", ok, nil, 401, "authentication_error", ""},
		{"wrong key", "hth_nope", ok, nil, 401, "authentication_error", ""},
		{"pipe key on a provider model", pipe.APIKey, ok, nil, 403, "permission_error", "pipe key"},
		{"missing max_tokens", admin, noMax, nil, 400, "invalid_request_error", "max_tokens"},
		{"bad max_tokens", admin, msgReq("hearth:echo", "hi", "max_tokens", 0), nil, 400, "invalid_request_error", "max_tokens"},
		{"bad role", admin, map[string]any{"model": "hearth:echo", "max_tokens": 5, "messages": []any{map[string]any{"role": "tool", "content": "x"}}}, nil, 400, "invalid_request_error", "messages[0].role"},
		{"temperature above 1", admin, msgReq("hearth:echo", "hi", "temperature", 1.5), nil, 400, "invalid_request_error", "temperature"},
		{"tool_choice naming no tool", admin, msgReq("hearth:echo", "hi", "tools", []any{weatherTool}, "tool_choice", map[string]any{"type": "tool", "name": "nope"}), nil, 400, "invalid_request_error", "tool_choice.name"},
		{"server tool", admin, msgReq("hearth:echo", "hi", "tools", []any{map[string]any{"type": "web_search_20250305", "name": "web_search"}}), nil, 400, "invalid_request_error", "tools[0].type"},
		{"pdf by url", admin, map[string]any{"model": "hearth:echo", "max_tokens": 5, "messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "document", "source": map[string]any{"type": "url", "url": "https://example.com/a.pdf"}}}}}}, nil, 400, "invalid_request_error", "messages[0].content[0].source.type"},
		{"unknown bare model", admin, msgReq("llama3", "hi"), nil, 404, "not_found_error", "llama3"},
		{"unknown provider", admin, msgReq("nosuch:model", "hi"), nil, 400, "invalid_request_error", "nosuch"},
		{"upstream rate limit", admin, msgReq("claude-sonnet-4-5", "hi"), &fake.Reply{Status: 429, Message: "slow down", RetryAfter: "0"}, 429, "rate_limit_error", ""},
		{"upstream refusal", admin, msgReq("claude-sonnet-4-5", "hi"), &fake.Reply{Status: 400, Message: "prompt is too long"}, 400, "invalid_request_error", "prompt is too long"},
		{"upstream overloaded", admin, msgReq("claude-sonnet-4-5", "hi"), &fake.Reply{Status: 529, Message: "Overloaded"}, 529, "overloaded_error", ""},
		{"upstream failure", admin, msgReq("claude-sonnet-4-5", "hi"), &fake.Reply{Status: 500, Message: "boom"}, 500, "api_error", ""},
	}
	for _, c := range cases {
		up.Reset()
		if c.reply != nil {
			up.SetDefault(*c.reply)
		} else {
			up.SetDefault(fake.Reply{})
		}
		r := postMessages(ts, c.key, c.body)
		var e msgError
		r.JSON(t, &e)
		if r.Status != c.status || e.Type != "error" || e.Error.Type != c.typ || e.Error.Message == "" || !strings.Contains(e.Error.Message, c.msg) {
			t.Errorf("%s: want %d %s (%q), got %d %s", c.name, c.status, c.typ, c.msg, r.Status, r.Body)
		}
	}

	limited := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.RateLimitPerKey = 1; c.RateLimitBurst = 1 }))
	mustStatus(t, postMessages(limited, admin, ok), 200)
	r = postMessages(limited, admin, ok)
	var e msgError
	r.JSON(t, &e)
	if r.Status != 429 || e.Error.Type != "rate_limit_error" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("Hearth rate limit: %d %v %s", r.Status, r.Header, r.Body)
	}
}

// TestMessagesRunLogAndBudget: Messages calls are runs like chat
// completions: in the run log under /anthropic/v1/messages with the model
// that answered and its tokens (streamed ones with time to first token),
// and refused by a spent budget before the model is called, as a
// rate_limit_error.
func TestMessagesRunLogAndBudget(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	ts, up, _ := budgetServer(t, start)
	mustStatus(t, postMessages(ts, admin, msgReq("openai:gpt-4o-mini", "hello")), 200)
	mustStatus(t, postMessages(ts, admin, msgReq("openai:gpt-4o-mini", "hello", "stream", true)), 200)
	ts.RunLog.Flush()
	var runs struct {
		Data []engine.RunRecord `json:"data"`
	}
	ts.Do("GET", "/v1/runs", admin, nil).JSON(t, &runs)
	if len(runs.Data) != 2 {
		t.Fatalf("%d runs: %+v", len(runs.Data), runs.Data)
	}
	for _, rec := range runs.Data {
		if rec.Endpoint != "/anthropic/v1/messages" || rec.Model != "openai:gpt-4o-mini" || rec.Status != engine.RunSuccess || rec.PromptTokens != 100000 || rec.CostUSD == nil {
			t.Fatalf("run %+v", rec)
		}
	}
	if streamed := runs.Data[0]; !streamed.Stream || streamed.FirstTokenMs == nil {
		t.Fatalf("streamed run %+v", streamed)
	}
	mustStatus(t, ts.Do("POST", "/v1/budgets", admin, map[string]any{"period": "month", "limit_usd": 0.02}), 200)
	calls := up.Count()
	r := postMessages(ts, admin, msgReq("openai:gpt-4o-mini", "hello"))
	var e msgError
	r.JSON(t, &e)
	if r.Status != 429 || e.Error.Type != "rate_limit_error" || !strings.Contains(e.Error.Message, "budget") || up.Count() != calls {
		t.Fatalf("spent budget: %d %s (upstream calls %d -> %d)", r.Status, r.Body, calls, up.Count())
	}
}

// TestMessagesFallbacks: LB-Fallback-Models applies as on the OpenAI
// surface: a Claude model whose upstream fails is answered by the
// fallback, lb-model names it, and thinking is not sent to a chain that
// may end on another provider (lb-warning says so).
func TestMessagesFallbacks(t *testing.T) {
	up := fake.NewAnthropic()
	t.Cleanup(up.Close)
	up.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", up.BaseURL(), "sk-ant"))
	up.SetDefault(fake.Reply{Status: 500, Message: "down"})
	r := postMessages(ts, admin, msgReq("claude-sonnet-4-5", "still there?", "thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}, "max_tokens", 2048),
		"LB-Fallback-Models", "hearth:echo")
	mustStatus(t, r, 200)
	var out msgResponse
	r.JSON(t, &out)
	if r.Header.Get(server.HeaderModel) != "hearth:echo" || out.Content[0]["text"] != "still there?" || !strings.Contains(r.Header.Get(server.HeaderWarning), "thinking") {
		t.Fatalf("fallback answer: %v %s", r.Header, r.Body)
	}
	if up.Count() == 0 {
		t.Fatal("the Claude model was not tried first")
	}
	if _, sent := up.LastRequest().JSON()["thinking"]; sent {
		t.Fatalf("thinking sent to a mixed chain: %s", up.LastRequest().Body)
	}
}

// TestMessagesPDFDocuments: a base64 PDF document block reaches Claude as
// a document block, OpenAI as a file part (a data: URL with its title as
// the file name) and Gemini as inline data; one inside a tool result
// follows the tool message; a text document is text.
func TestMessagesPDFDocuments(t *testing.T) {
	ant := fake.NewAnthropic()
	t.Cleanup(ant.Close)
	ant.SetRecording(true)
	oai := fake.NewOpenAI()
	t.Cleanup(oai.Close)
	oai.SetRecording(true)
	ts := servertest.Start(t, servertest.WithProvider("anthropic", ant.BaseURL(), "sk-ant"), servertest.WithProvider("openai", oai.BaseURL(), "sk-oai"))
	pdf := map[string]any{"type": "document", "title": "report.pdf", "source": map[string]any{"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"}}
	note := map[string]any{"type": "document", "title": "Notes", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "Budget is 5k."}}
	body := msgReq("claude-sonnet-4-5", "")
	body["messages"] = []any{map[string]any{"role": "user", "content": []any{pdf, note, map[string]any{"type": "text", "text": "Summarize."}}}}
	mustStatus(t, postMessages(ts, admin, body), 200)
	got := string(ant.LastRequest().Body)
	if !strings.Contains(got, `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"}}`) ||
		!strings.Contains(got, `"text":"Notes\n\nBudget is 5k."`) {
		t.Fatalf("anthropic request: %s", got)
	}
	body["model"] = "openai:gpt-4o-mini"
	mustStatus(t, postMessages(ts, admin, body), 200)
	if got := string(oai.LastRequest().Body); !strings.Contains(got, `{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQK","filename":"report.pdf"}}`) {
		t.Fatalf("openai request: %s", got)
	}
	gem := fake.NewGemini()
	t.Cleanup(gem.Close)
	gem.SetRecording(true)
	gts := servertest.Start(t, servertest.WithProvider("google", gem.BaseURL(), "g-key"))
	body["model"] = "google:gemini-3.5-flash"
	mustStatus(t, postMessages(gts, admin, body), 200)
	if got := string(gem.LastRequest().Body); !strings.Contains(got, `"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQK"}`) {
		t.Fatalf("gemini request: %s", got)
	}
	body["model"] = "openai:gpt-4o-mini"
	body["messages"] = []any{
		map[string]any{"role": "user", "content": "read it"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "call_r", "name": "read", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "call_r", "content": []any{map[string]any{"type": "text", "text": "one page"}, pdf}}}},
	}
	mustStatus(t, postMessages(ts, admin, body), 200)
	var turn struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(oai.LastRequest().Body, &turn)
	if n := len(turn.Messages); n != 4 || turn.Messages[2].Role != "tool" || string(turn.Messages[2].Content) != `"one page"` ||
		turn.Messages[3].Role != "user" || !strings.Contains(string(turn.Messages[3].Content), `"type":"file"`) {
		t.Fatalf("tool result with a PDF: %s", oai.LastRequest().Body)
	}
}
