package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// codexTools are the tool kinds Codex CLI offers: a function, a freeform
// custom tool with a grammar, a namespace of functions and hosted web
// search.
var codexTools = []any{
	map[string]any{"type": "function", "name": "exec_command", "parameters": map[string]any{"type": "object", "properties": map[string]any{"cmd": map[string]any{"type": "string"}}}},
	map[string]any{"type": "custom", "name": "apply_patch", "description": "Edit files.", "format": map[string]any{"type": "grammar", "syntax": "lark", "definition": "start: begin_patch"}},
	map[string]any{"type": "namespace", "name": "agents", "description": "Sub-agents.", "tools": []any{
		map[string]any{"type": "function", "name": "spawn", "parameters": map[string]any{"type": "object"}}}},
	map[string]any{"type": "web_search", "external_web_access": false},
}

// upstreamTools lists the function names and parameters a chat request
// offered the upstream.
func upstreamTools(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	out := map[string]string{}
	for _, tl := range req.Tools {
		out[tl.Function.Name] = tl.Function.Description + " " + string(tl.Function.Parameters)
	}
	return out
}

// TestResponsesCodexTools: custom (freeform) tools become a function of
// one "input" argument whose description carries the grammar, and the
// model's call comes back as a custom_tool_call item with the free text;
// a namespace's functions are offered as "<namespace>__<name>" and
// called back with name and namespace; web_search is left out with an
// lb-warning; the next turn's custom_tool_call, custom_tool_call_output
// and namespaced function_call items reach the upstream as tool calls
// and results. Codex's always-sent options are accepted.
func TestResponsesCodexTools(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	key := servertest.AdminKey
	patch := "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
	args, _ := json.Marshal(map[string]string{"input": patch})
	body := map[string]any{"model": "openai:gpt-4o-mini", "input": "edit", "tools": codexTools, "store": false,
		"include": []string{"reasoning.encrypted_content"}, "prompt_cache_key": "k1", "reasoning": map[string]any{"summary": "auto"},
		"text": map[string]any{"verbosity": "low"}, "service_tier": "auto", "client_metadata": map[string]any{"x": "y"}}

	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_p", Name: "apply_patch", Arguments: string(args)},
		{ID: "call_s", Name: "agents__spawn", Arguments: `{"task":"x"}`}}})
	res, r := createResponse(t, ts, key, body)
	offered := upstreamTools(t, up.LastRequest().Body)
	if len(offered) != 3 || !strings.Contains(offered["apply_patch"], `"input"`) || !strings.Contains(offered["apply_patch"], "start: begin_patch") ||
		offered["agents__spawn"] == "" || offered["exec_command"] == "" {
		t.Fatalf("offered upstream: %v", offered)
	}
	if w := r.Header.Get("lb-warning"); !strings.Contains(w, "web_search") {
		t.Fatalf("lb-warning %q", w)
	}
	if len(res.Output) != 2 || res.Output[0].Type != "custom_tool_call" || res.Output[0].Input != patch || res.Output[0].Name != "apply_patch" ||
		res.Output[0].CallID != "call_p" || !strings.HasPrefix(res.Output[0].ID, "ctc_") ||
		res.Output[1].Type != "function_call" || res.Output[1].Name != "spawn" || res.Output[1].Namespace != "agents" {
		t.Fatalf("output: %s", r.Body)
	}

	// Streamed, the custom call ends with its whole input.
	up.Enqueue(fake.Reply{ToolCalls: []fake.ToolCall{{ID: "call_p", Name: "apply_patch", Arguments: string(args)}}})
	evs := streamResponseEvents(t, ts, key, body)
	types := eventTypes(evs)
	if !slices.Contains(types, "custom_tool_call_input.done") || slices.Contains(types, "function_call_arguments.delta") {
		t.Fatalf("events %v", types)
	}
	last := evs[len(evs)-1].Resp
	if last.Output[0].Type != "custom_tool_call" || last.Output[0].Input != patch || evs[2].Item.Type != "custom_tool_call" {
		t.Fatalf("streamed: %s", evs[len(evs)-1].Raw)
	}

	// The next turn replays the calls and their results.
	up.Enqueue(fake.Reply{Text: "done"})
	body["stream"] = false
	body["input"] = []any{
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "edit"}}},
		map[string]any{"type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch", "input": patch},
		map[string]any{"type": "function_call", "call_id": "call_s", "name": "spawn", "namespace": "agents", "arguments": `{"task":"x"}`},
		map[string]any{"type": "web_search_call", "status": "completed", "action": map[string]any{"type": "search", "query": "q"}},
		map[string]any{"type": "custom_tool_call_output", "call_id": "call_p", "output": "Success. Updated a.txt"},
		map[string]any{"type": "function_call_output", "call_id": "call_s", "output": "spawned"},
	}
	res, r = createResponse(t, ts, key, body)
	var sent struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	json.Unmarshal(up.LastRequest().Body, &sent)
	if res.text() != "done" || len(sent.Messages) != 4 || len(sent.Messages[1].ToolCalls) != 2 ||
		sent.Messages[1].ToolCalls[0].Function.Arguments != string(args) || sent.Messages[1].ToolCalls[1].Function.Name != "agents__spawn" ||
		sent.Messages[2].ToolCallID != "call_p" || sent.Messages[2].Content != "Success. Updated a.txt" || sent.Messages[3].ToolCallID != "call_s" {
		t.Fatalf("second turn upstream: %s", up.LastRequest().Body)
	}
}
