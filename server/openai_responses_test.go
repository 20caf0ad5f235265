package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// oaiResponse is the part of a Responses API response object the tests read.
type oaiResponse struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	Status             string            `json:"status"`
	Model              string            `json:"model"`
	PreviousResponseID *string           `json:"previous_response_id"`
	Store              bool              `json:"store"`
	Metadata           map[string]string `json:"metadata"`
	IncompleteDetails  *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output []oaiItem `json:"output"`
	Usage  *struct {
		InputTokens        int `json:"input_tokens"`
		InputTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokens        int `json:"output_tokens"`
		OutputTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// oaiItem is one output or input item.
type oaiItem struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Status  string `json:"status"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	Output           string `json:"output"`
	EncryptedContent string `json:"encrypted_content"`
	Input            string `json:"input"`
	Namespace        string `json:"namespace"`
}

// text is the output_text of a response's message items.
func (r *oaiResponse) text() string {
	var b strings.Builder
	for _, it := range r.Output {
		for _, c := range it.Content {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// createResponse posts a Responses request and decodes the answer.
func createResponse(t *testing.T, ts *servertest.Server, key string, body map[string]any, headers ...string) (*oaiResponse, *servertest.Response) {
	t.Helper()
	r := ts.Do("POST", "/openai/v1/responses", key, body, headers...)
	mustStatus(t, r, 200)
	var out oaiResponse
	r.JSON(t, &out)
	return &out, r
}

// TestResponsesCreateGetDelete: a string input with instructions answers
// in the response shape with usage details; the stored response is read
// back with GET and its input items, deleted with DELETE; store:false
// keeps nothing.
func TestResponsesCreateGetDelete(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	res, r := createResponse(t, ts, key, map[string]any{"model": "hearth/echo", "input": "hello responses", "instructions": "Be brief.",
		"metadata": map[string]string{"ticket": "42"}, "temperature": 0.3, "max_output_tokens": 100})
	if res.Object != "response" || res.Status != "completed" || !strings.HasPrefix(res.ID, "resp_") || res.Model != "hearth:echo" ||
		res.text() != "hello responses" || len(res.Output) != 1 || res.Output[0].Type != "message" || res.Output[0].Role != "assistant" ||
		res.Output[0].Content[0].Type != "output_text" || res.Metadata["ticket"] != "42" || !res.Store {
		t.Fatalf("response: %s", r.Body)
	}
	if res.Usage == nil || res.Usage.InputTokens == 0 || res.Usage.OutputTokens != 2 || res.Usage.TotalTokens != res.Usage.InputTokens+2 ||
		!strings.Contains(string(r.Body), `"input_tokens_details":{"cached_tokens":0}`) || !strings.Contains(string(r.Body), `"output_tokens_details":{"reasoning_tokens":0}`) {
		t.Fatalf("usage: %s", r.Body)
	}
	if r.Header.Get(server.HeaderModel) != "hearth:echo" || r.Header.Get(server.HeaderThreadID) == "" {
		t.Fatalf("headers: %v", r.Header)
	}
	thread := r.Header.Get(server.HeaderThreadID)

	g := ts.Do("GET", "/openai/v1/responses/"+res.ID, key, nil)
	mustStatus(t, g, 200)
	if string(g.Body) != strings.TrimSpace(string(r.Body)) || g.Header.Get(server.HeaderThreadID) != thread {
		t.Fatalf("GET differs:\n%s\n%s", g.Body, r.Body)
	}
	var items struct {
		Object  string    `json:"object"`
		Data    []oaiItem `json:"data"`
		HasMore bool      `json:"has_more"`
		FirstID string    `json:"first_id"`
	}
	ts.Do("GET", "/openai/v1/responses/"+res.ID+"/input_items", key, nil).JSON(t, &items)
	if items.Object != "list" || len(items.Data) != 1 || items.Data[0].Type != "message" || items.Data[0].Role != "user" ||
		items.Data[0].Content[0].Type != "input_text" || items.Data[0].Content[0].Text != "hello responses" || items.FirstID != items.Data[0].ID || items.HasMore {
		t.Fatalf("input items: %+v", items)
	}

	// The thread holds the input and the answer (the instructions are not stored).
	var msgs []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	ts.Do("GET", "/v1/threads/"+thread+"/messages", key, nil).JSON(t, &msgs)
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[0].Content != "hello responses" || msgs[1].Role != "assistant" || msgs[1].Content != "hello responses" {
		t.Fatalf("thread messages: %+v", msgs)
	}

	d := ts.Do("DELETE", "/openai/v1/responses/"+res.ID, key, nil)
	if d.Status != 200 || string(d.Body) != `{"id":"`+res.ID+`","object":"response","deleted":true}`+"\n" {
		t.Fatalf("delete: %d %s", d.Status, d.Body)
	}
	for _, p := range []string{"", "/input_items"} {
		g = ts.Do("GET", "/openai/v1/responses/"+res.ID+p, key, nil)
		if g.Status != 404 || !strings.Contains(string(g.Body), `"type":"not_found_error"`) {
			t.Fatalf("after delete GET%s: %d %s", p, g.Status, g.Body)
		}
	}
	if d := ts.Do("DELETE", "/openai/v1/responses/"+res.ID, key, nil); d.Status != 404 {
		t.Fatalf("second delete: %d %s", d.Status, d.Body)
	}

	res, r = createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": "forget me", "store": false})
	if res.Store || res.text() != "forget me" || r.Header.Get(server.HeaderThreadID) != "" {
		t.Fatalf("store false: %s %v", r.Body, r.Header)
	}
	if g := ts.Do("GET", "/openai/v1/responses/"+res.ID, key, nil); g.Status != 404 {
		t.Fatalf("unstored GET: %d %s", g.Status, g.Body)
	}
	r = ts.Do("POST", "/openai/v1/responses", key, map[string]any{"model": "hearth:echo", "input": "x", "previous_response_id": res.ID})
	if r.Status != 404 || !strings.Contains(string(r.Body), `"param":"previous_response_id"`) {
		t.Fatalf("continue an unstored response: %d %s", r.Status, r.Body)
	}
}

// TestResponsesPreviousResponseID: continuing a stored response sends its
// conversation to the model and appends to its thread; continuing an
// older response forks a new thread holding that response's history.
func TestResponsesPreviousResponseID(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	first, r1 := createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": "first turn"})
	second, r2 := createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": "second turn", "previous_response_id": first.ID})
	if second.PreviousResponseID == nil || *second.PreviousResponseID != first.ID || second.text() != "second turn" {
		t.Fatalf("second: %s", r2.Body)
	}
	// The model saw the whole conversation: the echo model counts its words.
	if second.Usage.InputTokens != 2+2+2 {
		t.Fatalf("second turn input tokens %d, want the first turn's 4 and its own 2: %s", second.Usage.InputTokens, r2.Body)
	}
	thread := r1.Header.Get(server.HeaderThreadID)
	if r2.Header.Get(server.HeaderThreadID) != thread {
		t.Fatalf("a continuation of the thread's last response stays in it: %s vs %s", r2.Header.Get(server.HeaderThreadID), thread)
	}
	var msgs []struct {
		Content string `json:"content"`
	}
	ts.Do("GET", "/v1/threads/"+thread+"/messages", key, nil).JSON(t, &msgs)
	if len(msgs) != 4 || msgs[2].Content != "second turn" {
		t.Fatalf("thread: %+v", msgs)
	}

	// Branch from the first response again: a new thread with its history.
	branch, rb := createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": "other branch", "previous_response_id": first.ID})
	forked := rb.Header.Get(server.HeaderThreadID)
	if forked == thread || forked == "" || branch.Usage.InputTokens != 2+2+2 {
		t.Fatalf("fork: thread %q (first %q): %s", forked, thread, rb.Body)
	}
	var fmsgs []struct {
		Content string `json:"content"`
	}
	ts.Do("GET", "/v1/threads/"+forked+"/messages", key, nil).JSON(t, &fmsgs)
	if len(fmsgs) != 4 || fmsgs[0].Content != "first turn" || fmsgs[2].Content != "other branch" {
		t.Fatalf("forked thread: %+v", fmsgs)
	}
	ts.Do("GET", "/v1/threads/"+thread+"/messages", key, nil).JSON(t, &msgs)
	if len(msgs) != 4 {
		t.Fatalf("the first thread is unchanged by the fork: %+v", msgs)
	}
	// The input items of a continuation are its own input only.
	var items struct {
		Data []oaiItem `json:"data"`
	}
	ts.Do("GET", "/openai/v1/responses/"+second.ID+"/input_items", key, nil).JSON(t, &items)
	if len(items.Data) != 1 || items.Data[0].Content[0].Text != "second turn" {
		t.Fatalf("input items: %+v", items)
	}
	// Another owner cannot see or continue the response.
	other := scopedKeyOf(t, ts, "bob")
	if g := ts.Do("GET", "/openai/v1/responses/"+first.ID, other, nil); g.Status != 404 {
		t.Fatalf("another owner's GET: %d %s", g.Status, g.Body)
	}
	r := ts.Do("POST", "/openai/v1/responses", other, map[string]any{"model": "hearth:echo", "input": "x", "previous_response_id": first.ID})
	if r.Status != 404 {
		t.Fatalf("another owner's continuation: %d %s", r.Status, r.Body)
	}
	// A deleted thread ends the conversation.
	mustStatus(t, ts.Do("DELETE", "/v1/threads/"+thread, key, nil), 200)
	r = ts.Do("POST", "/openai/v1/responses", key, map[string]any{"model": "hearth:echo", "input": "x", "previous_response_id": second.ID})
	if r.Status != 404 || !strings.Contains(string(r.Body), "thread") {
		t.Fatalf("continuation of a deleted thread: %d %s", r.Status, r.Body)
	}
}

// scopedKeyOf creates user login with a key of its own.
func scopedKeyOf(t *testing.T, ts *servertest.Server, login string) string {
	t.Helper()
	if _, err := ts.Accounts.CreateUser(context.Background(), login); err != nil {
		t.Fatal(err)
	}
	_, k, err := ts.Accounts.CreateKey(context.Background(), login, "k")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestResponsesFunctionTools: a function tool call over two turns, once
// replaying the items and once with previous_response_id.
func TestResponsesFunctionTools(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	tools := []map[string]any{{"type": "function", "name": "get_weather", "description": "Weather of a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}
	input := []map[string]any{{"role": "user", "content": `call_tool:get_weather {"city":"Paris"}`}}
	res, r := createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": input, "tools": tools, "tool_choice": "auto", "parallel_tool_calls": false})
	if len(res.Output) != 1 || res.Output[0].Type != "function_call" || res.Output[0].Name != "get_weather" || res.Output[0].Arguments != `{"city":"Paris"}` ||
		res.Output[0].CallID == "" || res.Output[0].Status != "completed" || !strings.HasPrefix(res.Output[0].ID, "fc_") {
		t.Fatalf("call: %s", r.Body)
	}
	call := res.Output[0]
	// Turn two, the client replays everything.
	var items []any
	for _, it := range input {
		items = append(items, it)
	}
	items = append(items, map[string]any{"type": "function_call", "id": call.ID, "call_id": call.CallID, "name": call.Name, "arguments": call.Arguments},
		map[string]any{"type": "function_call_output", "call_id": call.CallID, "output": "sunny, 21 C"})
	two, r := createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": items, "tools": tools, "store": false})
	if two.text() != "tool result: sunny, 21 C" {
		t.Fatalf("turn two: %s", r.Body)
	}
	// Turn two, on the stored conversation.
	three, r := createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "previous_response_id": res.ID, "tools": tools,
		"input": []map[string]any{{"type": "function_call_output", "call_id": call.CallID, "output": []map[string]string{{"type": "input_text", "text": "rainy"}}}}})
	if three.text() != "tool result: rainy" {
		t.Fatalf("turn two by previous_response_id: %s", r.Body)
	}
	var msgs []struct {
		Role      string `json:"role"`
		ToolCalls []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	ts.Do("GET", "/v1/threads/"+r.Header.Get(server.HeaderThreadID)+"/messages", key, nil).JSON(t, &msgs)
	if len(msgs) != 4 || msgs[1].Role != "assistant" || len(msgs[1].ToolCalls) != 1 || msgs[1].ToolCalls[0].ID != call.CallID || msgs[2].Role != "tool" {
		t.Fatalf("thread: %+v", msgs)
	}
	// A forced function by the Responses tool_choice shape.
	res, r = createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": "no directive", "tools": tools,
		"tool_choice": map[string]any{"type": "function", "name": "get_weather"}})
	if len(res.Output) != 1 || res.Output[0].Name != "get_weather" || res.Output[0].Arguments != "{}" {
		t.Fatalf("forced: %s", r.Body)
	}
	// json_schema output through text.format.
	res, r = createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": "structured",
		"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "answer", "schema": map[string]any{"type": "object"}, "strict": true}}})
	var parsed map[string]string
	if json.Unmarshal([]byte(res.text()), &parsed) != nil || parsed["echo"] != "structured" || !strings.Contains(string(r.Body), `"format":{"name":"answer"`) &&
		!strings.Contains(string(r.Body), `"type":"json_schema"`) {
		t.Fatalf("json_schema: %s", r.Body)
	}
	// max_output_tokens cuts the answer: status incomplete.
	res, r = createResponse(t, ts, key, map[string]any{"model": "hearth:echo", "input": "one two three four", "max_output_tokens": 2})
	if res.Status != "incomplete" || res.IncompleteDetails == nil || res.IncompleteDetails.Reason != "max_output_tokens" || res.text() != "one two" {
		t.Fatalf("incomplete: %s", r.Body)
	}
}
