package server_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestResponsesValidation: bad input is a 400 in OpenAI's error shape
// whose param names the field in the Responses body's terms.
func TestResponsesValidation(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	fn := map[string]any{"type": "function", "name": "f", "parameters": map[string]any{"type": "object"}}
	cases := []struct {
		name  string
		body  map[string]any
		param string
		says  string
	}{
		{"no input", map[string]any{"model": "hearth:echo"}, "input", "is required"},
		{"empty input", map[string]any{"model": "hearth:echo", "input": []any{}}, "input", "at least one item"},
		{"no model", map[string]any{"input": "x"}, "model", ""},
		{"temperature", map[string]any{"model": "hearth:echo", "input": "x", "temperature": 5}, "temperature", "between 0 and 2"},
		{"top_p", map[string]any{"model": "hearth:echo", "input": "x", "top_p": 2}, "top_p", "between 0 and 1"},
		{"max_output_tokens", map[string]any{"model": "hearth:echo", "input": "x", "max_output_tokens": 0}, "max_output_tokens", "positive integer"},
		{"max_output_tokens type", map[string]any{"model": "hearth:echo", "input": "x", "max_output_tokens": "ten"}, "max_output_tokens", ""},
		{"effort", map[string]any{"model": "hearth:echo", "input": "x", "reasoning": map[string]any{"effort": "extreme"}}, "reasoning.effort", "minimal"},
		{"format type", map[string]any{"model": "hearth:echo", "input": "x", "text": map[string]any{"format": map[string]any{"type": "yaml"}}}, "text.format.type", "json_schema"},
		{"format name", map[string]any{"model": "hearth:echo", "input": "x", "text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "bad name!", "schema": map[string]any{}}}}, "text.format.name", ""},
		{"tool name", map[string]any{"model": "hearth:echo", "input": "x", "tools": []any{map[string]any{"type": "function", "name": "bad name"}}}, "tools[0].name", ""},
		{"tool parameters", map[string]any{"model": "hearth:echo", "input": "x", "tools": []any{map[string]any{"type": "function", "name": "f", "parameters": "x"}}}, "tools[0].parameters", ""},
		{"built-in tool", map[string]any{"model": "hearth:echo", "input": "x", "tools": []any{fn, map[string]any{"type": "file_search"}}}, "tools[1].type", "file_search, code_interpreter, computer_use_preview"},
		{"tool name after a namespace", map[string]any{"model": "hearth:echo", "input": "x", "tools": []any{map[string]any{"type": "namespace", "name": "ns", "tools": []any{fn, fn}}}}, "tools[0].tools[1].name", "duplicates"},
		{"namespace member", map[string]any{"model": "hearth:echo", "input": "x", "tools": []any{map[string]any{"type": "namespace", "name": "ns", "tools": []any{map[string]any{"type": "custom", "name": "c"}}}}}, "tools[0].tools[0].type", "inside a namespace"},
		{"custom call input", map[string]any{"model": "hearth:echo", "input": []any{map[string]any{"type": "custom_tool_call", "call_id": "c", "name": "apply_patch"}}}, "input[0].input", "free-text"},
		{"tool_choice name", map[string]any{"model": "hearth:echo", "input": "x", "tools": []any{fn}, "tool_choice": map[string]any{"type": "function"}}, "tool_choice.name", "is required"},
		{"tool_choice unknown", map[string]any{"model": "hearth:echo", "input": "x", "tools": []any{fn}, "tool_choice": map[string]any{"type": "function", "name": "g"}}, "tool_choice", "not among the tools"},
		{"tool_choice built-in", map[string]any{"model": "hearth:echo", "input": "x", "tool_choice": map[string]any{"type": "web_search_preview"}}, "tool_choice.type", ""},
		{"item type", map[string]any{"model": "hearth:echo", "input": []any{map[string]any{"role": "user", "content": "x"}, map[string]any{"type": "computer_call"}}}, "input[1].type", "not supported"},
		{"item role", map[string]any{"model": "hearth:echo", "input": []any{map[string]any{"role": "robot", "content": "x"}}}, "input[0].role", "developer"},
		{"part type", map[string]any{"model": "hearth:echo", "input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_audio"}}}}}, "input[0].content[0].type", ""},
		{"image file", map[string]any{"model": "hearth:echo", "input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_image", "file_id": "file_1"}}}}}, "input[0].content[0].file_id", "image_url"},
		{"call without id", map[string]any{"model": "hearth:echo", "input": []any{map[string]any{"type": "function_call", "name": "f", "arguments": "{}"}}}, "input[0].call_id", "is required"},
		{"output without result", map[string]any{"model": "hearth:echo", "input": []any{map[string]any{"type": "function_call_output", "call_id": "c"}}}, "input[0].output", "is required"},
		{"item reference", map[string]any{"model": "hearth:echo", "input": []any{map[string]any{"type": "item_reference", "id": "msg_1"}}}, "input[0].type", "previous_response_id"},
		{"metadata", map[string]any{"model": "hearth:echo", "input": "x", "metadata": map[string]any{"k": strings.Repeat("v", 513)}}, "metadata.k", "512"},
		{"background", map[string]any{"model": "hearth:echo", "input": "x", "background": true}, "background", ""},
		{"conversation", map[string]any{"model": "hearth:echo", "input": "x", "conversation": "conv_1"}, "conversation", "previous_response_id"},
		{"pipe model", map[string]any{"model": "pipe:p", "input": "x"}, "model", "pipe:p not found"},
		{"pipe previous", map[string]any{"model": "pipe:p", "input": "x", "previous_response_id": "resp_1"}, "previous_response_id", "lb-thread-id"},
		{"previous unknown", map[string]any{"model": "hearth:echo", "input": "x", "previous_response_id": "resp_nope"}, "previous_response_id", "not found"},
	}
	for _, c := range cases {
		r := ts.Do("POST", "/openai/v1/responses", key, c.body)
		var e struct {
			Error struct {
				Message string  `json:"message"`
				Type    string  `json:"type"`
				Param   *string `json:"param"`
			} `json:"error"`
		}
		r.JSON(t, &e)
		if r.Status/100 != 4 || e.Error.Param == nil || *e.Error.Param != c.param || !strings.Contains(e.Error.Message, c.says) || e.Error.Type == "" {
			t.Errorf("%s: want a 4xx naming %q saying %q, got %d %s", c.name, c.param, c.says, r.Status, r.Body)
		}
	}
}

// TestResponsesAuthAndScopes: no key is a 401 in OpenAI's shape; a key
// scoped to other models is refused; a read-only key may create
// responses but not delete them; a pipe key is refused.
func TestResponsesAuthAndScopes(t *testing.T) {
	ts := servertest.Start(t)
	body := map[string]any{"model": "hearth:echo", "input": "x"}
	r := ts.Do("POST", "/openai/v1/responses", "", body)
	if r.Status != 401 || !strings.Contains(string(r.Body), `"type":"authentication_error"`) {
		t.Fatalf("no key: %d %s", r.Status, r.Body)
	}
	r = ts.Do("POST", "/openai/v1/responses", "hth_not_a_real_key_000000000000", body)
	if r.Status != 401 {
		t.Fatalf("bad key: %d %s", r.Status, r.Body)
	}
	other := scopedKey(t, ts, map[string]any{"models": []string{"openai"}})
	r = ts.Do("POST", "/openai/v1/responses", other, body)
	if r.Status != 403 || !strings.Contains(string(r.Body), `"type":"permission_error"`) || !strings.Contains(string(r.Body), "hearth:echo") {
		t.Fatalf("model outside the scope: %d %s", r.Status, r.Body)
	}
	ro := scopedKey(t, ts, map[string]any{"read_only": true})
	res, _ := createResponse(t, ts, ro, body)
	mustStatus(t, ts.Do("GET", "/openai/v1/responses/"+res.ID, ro, nil), 200)
	r = ts.Do("DELETE", "/openai/v1/responses/"+res.ID, ro, nil)
	if r.Status != 403 || !strings.Contains(string(r.Body), "read_only") {
		t.Fatalf("read-only delete: %d %s", r.Status, r.Body)
	}
	pk := pipeKeyOf(t, ts, map[string]any{"name": "p", "model": "hearth:echo"})
	if pk == "" {
		t.Fatal("no pipe key")
	}
	r = ts.Do("POST", "/openai/v1/responses", pk, body)
	if r.Status != 403 || !strings.Contains(string(r.Body), "user or org key") {
		t.Fatalf("pipe key: %d %s", r.Status, r.Body)
	}
}

// TestResponsesRunLogAndBudget: calls are run records under
// /openai/v1/responses with their tokens (streamed ones too), and count
// against budgets, which refuse the next call in OpenAI's error shape
// before the model is called.
func TestResponsesRunLogAndBudget(t *testing.T) {
	now := time.Date(2026, 3, 15, 18, 0, 0, 0, time.UTC)
	ts, up, _ := budgetServer(t, now)
	body := map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"}
	createResponse(t, ts, admin, body)
	streamResponseEvents(t, ts, admin, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"})
	r := ts.Do("POST", "/openai/v1/responses", admin, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi", "temperature": 9})
	mustStatus(t, r, 400)
	ts.RunLog.Flush()
	var runs struct {
		Data []struct {
			Endpoint     string `json:"endpoint"`
			Model        string `json:"model"`
			Pipe         string `json:"pipe"`
			Status       string `json:"status"`
			Stream       bool   `json:"stream"`
			PromptTokens int    `json:"prompt_tokens"`
		} `json:"data"`
	}
	ts.Do("GET", "/v1/runs?limit=10", admin, nil).JSON(t, &runs)
	if len(runs.Data) != 2 || runs.Data[0].Stream == runs.Data[1].Stream {
		t.Fatalf("runs (one whole, one streamed; a refused request is none): %+v", runs.Data)
	}
	for _, run := range runs.Data {
		if run.Endpoint != "/openai/v1/responses" || run.Model != "openai:gpt-4o-mini" || run.PromptTokens != 100000 || run.Status != "success" || run.Pipe != "" {
			t.Fatalf("run %+v", run)
		}
	}
	allowed(t, "budget", ts.Do("POST", "/v1/budgets", admin, map[string]any{"period": "day", "limit_tokens": 150000}))
	calls := up.Count()
	r = ts.Do("POST", "/openai/v1/responses", admin, body)
	if r.Status != 429 || !strings.Contains(string(r.Body), `"type":"rate_limit_error"`) || r.Header.Get("lb-budget-reset") == "" || up.Count() != calls {
		t.Fatalf("over budget: %d %s (upstream calls %d -> %d)", r.Status, r.Body, calls, up.Count())
	}
}

// TestResponsesOpenAPI: /openapi.json documents the Responses routes,
// the create body's fields and its stream.
func TestResponsesOpenAPI(t *testing.T) {
	ts := servertest.Start(t)
	var doc openapiDoc
	ts.Do("GET", "/openapi.json", "", nil).JSON(t, &doc)
	create := doc.Paths["/openai/v1/responses"]["post"]
	if create.RequestBody == nil || create.Responses["200"] == nil {
		t.Fatalf("create operation %+v", create)
	}
	schema := create.RequestBody.Content["application/json"].Schema
	comp := doc.Components.Schemas[strings.TrimPrefix(schema["$ref"].(string), "#/components/schemas/")]
	props := comp["properties"].(map[string]any)
	for _, f := range []string{"model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning",
		"max_output_tokens", "temperature", "top_p", "metadata", "store", "previous_response_id", "stream"} {
		if props[f] == nil {
			t.Errorf("create body lacks %s: %v", f, props)
		}
	}
	ok, _ := json.Marshal(create.Responses["200"])
	if !strings.Contains(string(ok), "text/event-stream") {
		t.Errorf("create does not document its stream: %s", ok)
	}
	for path, methods := range map[string][]string{"/openai/v1/responses/{id}": {"get", "delete"}, "/openai/v1/responses/{id}/input_items": {"get"}} {
		for _, m := range methods {
			op := doc.Paths[path][m]
			if op.Summary == "" || len(op.Parameters) != 1 || op.Parameters[0].Name != "id" {
				t.Errorf("%s %s: %+v", m, path, op)
			}
		}
	}
}

// TestResponsesCluster: two nodes on one PostgreSQL database share
// stored responses: one stores, the other reads, continues and lists
// them, and a delete on one is seen by the other.
func TestResponsesCluster(t *testing.T) {
	nodes := servertest.StartCluster(t, 2)
	a, b := nodes[0], nodes[1]
	first, ra := createResponse(t, a, admin, map[string]any{"model": "hearth:echo", "input": "stored on a"})
	if g := b.Do("GET", "/openai/v1/responses/"+first.ID, admin, nil); g.Status != 200 || !strings.Contains(string(g.Body), "stored on a") {
		t.Fatalf("GET on b: %d %s", g.Status, g.Body)
	}
	second, rb := createResponse(t, b, admin, map[string]any{"model": "hearth:echo", "input": "continued on b", "previous_response_id": first.ID})
	if rb.Header.Get("lb-thread-id") != ra.Header.Get("lb-thread-id") || second.Usage.InputTokens != 3+3+3 {
		t.Fatalf("continuation on b: %s %s", rb.Header.Get("lb-thread-id"), rb.Body)
	}
	mustStatus(t, a.Do("DELETE", "/openai/v1/responses/"+second.ID, admin, nil), 200)
	if g := b.Do("GET", "/openai/v1/responses/"+second.ID+"/input_items", admin, nil); g.Status != 404 {
		t.Fatalf("deleted on a, read on b: %d %s", g.Status, g.Body)
	}
}

// TestResponsesInputTooLarge: with store on, an input message larger
// than a thread stores is refused before the model is called; with
// store off it runs.
func TestResponsesInputTooLarge(t *testing.T) {
	ts := servertest.Start(t, servertest.WithServices(func(a *app.App) {
		a.Deps.Threads.SetLimits(engine.ThreadLimits{MaxMessageBytes: 1000})
	}))
	big := strings.Repeat("word ", 400)
	r := ts.Do("POST", "/openai/v1/responses", admin, map[string]any{"model": "hearth:echo", "input": big})
	if r.Status != 413 || !strings.Contains(string(r.Body), `"param":"input[0]"`) {
		t.Fatalf("too large to store: %d %s", r.Status, r.Body)
	}
	createResponse(t, ts, admin, map[string]any{"model": "hearth:echo", "input": big, "store": false})
}

// TestResponsesRunContent: once the owner opted in, a Responses call's
// messages (instructions included) and answer are kept in the run log,
// whole and streamed, with the caller's provider key redacted.
func TestResponsesRunContent(t *testing.T) {
	ts := servertest.Start(t)
	mustStatus(t, ts.Do("PUT", "/v1/runs/settings", admin, map[string]any{"log_content": true}), 200)
	const callerKey = "caller-key-42"
	createResponse(t, ts, admin, map[string]any{"model": "hearth:echo", "instructions": "Be brief.", "input": "whole " + callerKey}, "LB-LLM-Key", callerKey)
	streamResponseEvents(t, ts, admin, map[string]any{"model": "hearth:echo", "input": "streamed words"})
	ts.RunLog.Flush()
	var page struct {
		Data []engine.RunRecord `json:"data"`
	}
	ts.Do("GET", "/v1/runs", admin, nil).JSON(t, &page)
	if len(page.Data) != 2 {
		t.Fatalf("runs: %+v", page.Data)
	}
	streamed, whole := getRun(t, ts, page.Data[0].ID), getRun(t, ts, page.Data[1].ID)
	if streamed.Content == nil || streamed.Content.Completion != "streamed words" || len(streamed.Content.Messages) != 1 {
		t.Fatalf("streamed content %+v", streamed.Content)
	}
	if c := whole.Content; c == nil || len(c.Messages) != 2 || c.Messages[0].Content.String() != "Be brief." ||
		strings.Contains(c.Messages[1].Content.String()+c.Completion, callerKey) || !strings.Contains(c.Completion, "[REDACTED]") {
		t.Fatalf("whole content %+v", whole.Content)
	}
}

// TestResponsesFallbackAndOTel: LB-Fallback-Models applies as on chat
// completions (the answer and lb-model come from the fallback), and the
// call is traced like one: a server span for the route with the failed
// and the answering provider calls under it.
func TestResponsesFallbackAndOTel(t *testing.T) {
	ts, rec, up := startTraced(t)
	up.Enqueue(fake.Reply{Status: 500, Message: "down"}, fake.Reply{Status: 500, Message: "down"}, fake.Reply{Text: "from the fallback"})
	res, r := createResponse(t, ts, admin, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"}, server.HeaderFallbackModels, "openai/gpt-4o")
	if res.text() != "from the fallback" || res.Model != "openai:gpt-4o" || r.Header.Get(server.HeaderModel) != "openai:gpt-4o" {
		t.Fatalf("fallback: %v %s", r.Header, r.Body)
	}
	ts.FlushTraces()
	trace := rec.Trace(r.Header.Get(server.HeaderTraceID))
	one(t, trace, "POST /openai/v1/responses")
	if failed, ok := one(t, trace, "chat gpt-4o-mini"), one(t, trace, "chat gpt-4o"); failed.StatusCode != 2 || ok.StatusCode == 2 {
		t.Errorf("status: primary %d, fallback %d; want the primary failed only", failed.StatusCode, ok.StatusCode)
	}
}

// TestResponsesRecordReplay: a session recorded against the upstream
// replays with the upstream gone, and in deterministic mode the replayed
// answers, whole and streamed, are byte for byte the recorded ones.
func TestResponsesRecordReplay(t *testing.T) {
	dir := t.TempDir()
	up := fake.NewOpenAI()
	up.SetDefault(fake.Reply{Text: "Recorded once, replayed forever."})
	var answers [2][2]string
	for i, opt := range []servertest.Option{servertest.WithRecord(dir), servertest.WithReplay(dir, "error")} {
		ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"), servertest.WithDeterministic(), opt)
		r := ts.Do("POST", "/openai/v1/responses", admin, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"})
		mustStatus(t, r, 200)
		resp := postStream(t, context.Background(), ts.URL+"/openai/v1/responses", admin, map[string]any{"model": "openai:gpt-4o-mini", "input": "hi again", "stream": true})
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answers[i] = [2]string{string(r.Body), string(b)}
		up.Close() // the replay runs without it
	}
	if !strings.Contains(answers[1][0], "Recorded once, replayed forever.") || !strings.Contains(answers[1][1], "event: response.completed") {
		t.Fatalf("replay: %q", answers[1])
	}
	if answers[0] != answers[1] {
		t.Fatalf("replayed answers differ:\n%s\n%s", answers[0], answers[1])
	}
}
