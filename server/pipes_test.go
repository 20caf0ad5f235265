package server_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

const admin = servertest.AdminKey

func TestPipeCreateDefaultsAndShapes(t *testing.T) {
	e := startEnv(t)
	r := e.Do("POST", "/v1/pipes", admin, map[string]any{"name": "summary", "apiKey": "ignored", "rawResponse": true})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var created map[string]any
	r.JSON(t, &created)
	key, _ := created["api_key"].(string)
	if !strings.HasPrefix(key, "hth_pipe_") {
		t.Fatalf("api_key %q", key)
	}
	delete(created, "api_key")
	want := map[string]any{"name": "summary", "description": "", "status": "public", "owner_login": "admin",
		"url": e.URL + "/studio/pipes/admin/summary", "type": "chat"}
	if !reflect.DeepEqual(created, want) {
		t.Fatalf("create response\n got %v\nwant %v", created, want)
	}

	var list []map[string]any
	e.Do("GET", "/v1/pipes", admin, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("list %v", list)
	}
	item := list[0]
	wantItem := map[string]any{
		"name": "summary", "description": "", "status": "public", "owner_login": "admin", "url": e.URL + "/studio/pipes/admin/summary",
		"type": "chat", "model": "openai:gpt-4o-mini", "stream": true, "json": false, "store": true, "moderate": false,
		"top_p": 1.0, "max_tokens": 1000.0, "temperature": 0.7, "presence_penalty": 1.0, "frequency_penalty": 1.0,
		"stop": []any{}, "tool_choice": "auto", "parallel_tool_calls": true, "messages": []any{}, "variables": []any{},
		"tools": []any{}, "memory": []any{}, "response_format": map[string]any{"type": "text"},
	}
	if !reflect.DeepEqual(item, wantItem) {
		t.Fatalf("list item\n got %v\nwant %v", item, wantItem)
	}
	var got map[string]any
	e.Do("GET", "/v1/pipes/summary", admin, nil).JSON(t, &got)
	if !reflect.DeepEqual(got, wantItem) {
		t.Fatalf("get\n got %v\nwant %v", got, wantItem)
	}
}

func TestPipeCreateEveryField(t *testing.T) {
	e := startEnv(t)
	body := map[string]any{
		"name": "full.pipe_1", "description": "Summarises", "status": "private", "model": "anthropic:claude-sonnet-4-5",
		"stream": false, "json": true, "store": false, "moderate": true, "top_p": 0.9, "max_tokens": 500,
		"temperature": 1.2, "presence_penalty": -0.5, "frequency_penalty": 0.25, "stop": []string{"END", "STOP"},
		"tool_choice":         map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}},
		"parallel_tool_calls": false,
		"messages": []map[string]any{
			{"role": "system", "content": "You summarise {{topic}}."},
			{"role": "system", "name": "safety", "content": "No PII."},
			{"role": "user", "content": "Example"},
			{"role": "assistant", "content": "Answer"},
		},
		"variables": map[string]string{"topic": "news", "a": "b"},
		"tools": []map[string]any{{"type": "function", "function": map[string]any{"name": "get_weather", "description": "Weather",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"loc": map[string]any{"type": "string"}}}}}},
		"memory":          []map[string]string{{"name": "docs"}},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "out", "schema": map[string]any{"type": "object"}, "strict": true}},
	}
	e.createPipe(t, admin, body)
	var got map[string]any
	e.Do("GET", "/v1/pipes/full.pipe_1", admin, nil).JSON(t, &got)
	checks := map[string]any{
		"description": "Summarises", "status": "private", "model": "anthropic:claude-sonnet-4-5", "stream": false, "json": true,
		"store": false, "moderate": true, "top_p": 0.9, "max_tokens": 500.0, "temperature": 1.2, "presence_penalty": -0.5,
		"frequency_penalty": 0.25, "stop": []any{"END", "STOP"}, "parallel_tool_calls": false,
		"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}},
		"variables":   []any{map[string]any{"name": "a", "value": "b"}, map[string]any{"name": "topic", "value": "news"}},
		"memory":      []any{map[string]any{"name": "docs"}},
	}
	for k, v := range checks {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if msgs := got["messages"].([]any); len(msgs) != 4 || msgs[1].(map[string]any)["name"] != "safety" {
		t.Errorf("messages %v", got["messages"])
	}
	if rf := got["response_format"].(map[string]any); rf["type"] != "json_schema" || rf["json_schema"].(map[string]any)["strict"] != true {
		t.Errorf("response_format %v", rf)
	}
	// The array form of variables and an array description are accepted too.
	e.createPipe(t, admin, map[string]any{"name": "arr", "description": []string{"a", "b"}, "variables": []map[string]string{{"name": " x ", "value": "1"}}})
	e.Do("GET", "/v1/pipes/arr", admin, nil).JSON(t, &got)
	if got["description"] != "a\nb" || !reflect.DeepEqual(got["variables"], []any{map[string]any{"name": "x", "value": "1"}}) {
		t.Fatalf("array forms: %v %v", got["description"], got["variables"])
	}
}

func TestPipeValidation(t *testing.T) {
	e := startEnv(t)
	tool := func(name string) map[string]any {
		return map[string]any{"type": "function", "function": map[string]any{"name": name}}
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"name missing", map[string]any{}, "name"},
		{"name pattern", map[string]any{"name": "bad name"}, "name"},
		{"name leading dash", map[string]any{"name": "-x"}, "name"},
		{"name too long", map[string]any{"name": strings.Repeat("a", 101)}, "name"},
		{"name reserved", map[string]any{"name": "run"}, "name"},
		{"status", map[string]any{"name": "p", "status": "secret"}, "status"},
		{"type", map[string]any{"name": "p", "type": "batch"}, "type"},
		{"model format", map[string]any{"name": "p", "model": "gpt-4o"}, "model"},
		{"model provider", map[string]any{"name": "p", "model": "nope:x"}, "model"},
		{"temperature high", map[string]any{"name": "p", "temperature": 2.5}, "temperature"},
		{"temperature low", map[string]any{"name": "p", "temperature": -0.1}, "temperature"},
		{"top_p", map[string]any{"name": "p", "top_p": 1.5}, "top_p"},
		{"max_tokens zero", map[string]any{"name": "p", "max_tokens": 0}, "max_tokens"},
		{"max_tokens fraction", map[string]any{"name": "p", "max_tokens": 1.5}, "max_tokens"},
		{"presence_penalty", map[string]any{"name": "p", "presence_penalty": 3}, "presence_penalty"},
		{"frequency_penalty", map[string]any{"name": "p", "frequency_penalty": -2.5}, "frequency_penalty"},
		{"stop too many", map[string]any{"name": "p", "stop": []string{"a", "b", "c", "d", "e"}}, "stop"},
		{"stop empty", map[string]any{"name": "p", "stop": []string{""}}, "stop[0]"},
		{"stop type", map[string]any{"name": "p", "stop": []int{1}}, "stop"},
		{"tool type", map[string]any{"name": "p", "tools": []any{map[string]any{"type": "retrieval", "function": map[string]any{"name": "x"}}}}, "tools[0].type"},
		{"tool name", map[string]any{"name": "p", "tools": []any{tool("bad name")}}, "tools[0].function.name"},
		{"tool duplicate", map[string]any{"name": "p", "tools": []any{tool("a"), tool("a")}}, "tools[1].function.name"},
		{"tool parameters", map[string]any{"name": "p", "tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "a", "parameters": []int{1}}}}}, "tools[0].function.parameters"},
		{"tool_choice unknown tool", map[string]any{"name": "p", "tools": []any{tool("a")}, "tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "b"}}}, "tool_choice"},
		{"tool_choice mode", map[string]any{"name": "p", "tool_choice": "sometimes"}, "tool_choice"},
		{"memory missing", map[string]any{"name": "p", "memory": []map[string]string{{"name": "nope"}}}, "memory[0].name"},
		{"memory bad name", map[string]any{"name": "p", "memory": []map[string]string{{"name": "a/b"}}}, "memory[0].name"},
		{"response_format type", map[string]any{"name": "p", "response_format": map[string]any{"type": "xml"}}, "response_format.type"},
		{"json_schema name", map[string]any{"name": "p", "response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"schema": map[string]any{}}}}, "response_format.json_schema.name"},
		{"json_schema missing", map[string]any{"name": "p", "response_format": map[string]any{"type": "json_schema"}}, "response_format.json_schema"},
		{"message role", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "bot", "content": "x"}}}, "messages[0].role"},
		{"message content", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "user"}}}, "messages[0].content"},
		{"system name", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "system", "name": "other", "content": "x"}}}, "messages[0].name"},
		{"two system prompts", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "system", "content": "x"}, map[string]any{"role": "system", "content": "y"}}}, "messages[1]"},
		{"tool message id", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "tool", "content": "x"}}}, "messages[0].tool_call_id"},
		{"variables value", map[string]any{"name": "p", "variables": map[string]any{"a": 1}}, "variables.a"},
		{"variables name", map[string]any{"name": "p", "variables": []any{map[string]any{"name": "{{x}}", "value": "1"}}}, "variables[0].name"},
		{"description long", map[string]any{"name": "p", "description": strings.Repeat("d", 10001)}, "description"},
		{"boolean type", map[string]any{"name": "p", "stream": "yes"}, "stream"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do("POST", "/v1/pipes", admin, tc.body)
			var er apiErr
			r.JSON(t, &er)
			if r.Status != 400 || er.Error.Code != "BAD_REQUEST" || !strings.HasPrefix(er.Error.Message, tc.field) {
				t.Fatalf("want 400 naming %q, got %d %s", tc.field, r.Status, r.Body)
			}
		})
	}
	var list []any
	e.Do("GET", "/v1/pipes", admin, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("invalid pipes were stored: %v", list)
	}
}

func TestPipeConflictUpsertUpdateDelete(t *testing.T) {
	e := startEnv(t)
	key := e.createPipe(t, admin, map[string]any{"name": "p", "description": "one", "temperature": 0.3})
	r := e.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p"})
	if r.Status != 409 || !strings.Contains(string(r.Body), `"code":"CONFLICT"`) {
		t.Fatalf("duplicate: %d %s", r.Status, r.Body)
	}
	// Upsert updates only the given fields and shows no key.
	r = e.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "upsert": true, "description": "two"})
	var cv map[string]any
	r.JSON(t, &cv)
	if r.Status != 200 || cv["api_key"] != "" || cv["description"] != "two" {
		t.Fatalf("upsert: %d %s", r.Status, r.Body)
	}
	var got map[string]any
	e.Do("GET", "/v1/pipes/p", admin, nil).JSON(t, &got)
	if got["temperature"] != 0.3 {
		t.Fatalf("upsert reset temperature: %v", got["temperature"])
	}
	// Upsert of a new name creates it, with a key.
	if k := e.createPipe(t, admin, map[string]any{"name": "q", "upsert": true}); k == "" {
		t.Fatal("upsert-create returned no key")
	}
	// SDK update: POST /v1/pipes/{name}, partial.
	r = e.Do("POST", "/v1/pipes/p", admin, map[string]any{"name": "p", "status": "private", "max_tokens": 42})
	r.JSON(t, &cv)
	if r.Status != 200 || cv["status"] != "private" || cv["api_key"] != "" || cv["url"] != e.URL+"/studio/pipes/admin/p" {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	e.Do("GET", "/v1/pipes/p", admin, nil).JSON(t, &got)
	if got["max_tokens"] != 42.0 || got["temperature"] != 0.3 || got["description"] != "two" {
		t.Fatalf("after update: %v", got)
	}
	if r := e.Do("POST", "/v1/pipes/p", admin, map[string]any{"temperature": 9}); r.Status != 400 {
		t.Fatalf("invalid update: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/nope", admin, map[string]any{"temperature": 1}); r.Status != 404 {
		t.Fatalf("update unknown: %d %s", r.Status, r.Body)
	}
	// Rename keeps the key working.
	if r := e.Do("POST", "/v1/pipes/p", admin, map[string]any{"name": "q"}); r.Status != 400 {
		t.Fatalf("rename onto existing: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/p", admin, map[string]any{"name": "p2"}); r.Status != 200 {
		t.Fatalf("rename: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/run", key, map[string]any{"messages": []any{map[string]string{"role": "user", "content": "hi"}}}); r.Status != 200 {
		t.Fatalf("run after rename: %d %s", r.Status, r.Body)
	}
	// A pipe keyset entry, then delete: the pipe, its keys and its keyset go.
	if r := e.Do("DELETE", "/v1/pipes/p2", admin, nil); r.Status != 200 || string(r.Body) != `{"success":true}`+"\n" {
		t.Fatalf("delete: %d %q", r.Status, r.Body)
	}
	if r := e.Do("GET", "/v1/pipes/p2", admin, nil); r.Status != 404 {
		t.Fatalf("get deleted: %d", r.Status)
	}
	if r := e.Do("DELETE", "/v1/pipes/p2", admin, nil); r.Status != 404 {
		t.Fatalf("delete twice: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/pipes/run", key, map[string]any{"messages": []any{map[string]string{"role": "user", "content": "hi"}}}); r.Status != 401 {
		t.Fatalf("deleted pipe's key still works: %d %s", r.Status, r.Body)
	}
}

func TestPipeDeleteRemovesPipeKeyset(t *testing.T) {
	e := startEnv(t)
	e.createPipe(t, admin, map[string]any{"name": "p"})
	keys, err := e.Accounts.ListKeys(t.Context(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	pipeID := ""
	for _, k := range keys {
		if k.Kind == "pipe" {
			pipeID = k.PipeID
		}
	}
	if pipeID == "" {
		t.Fatalf("no pipe key: %+v", keys)
	}
	ctx := t.Context()
	if _, err := e.Keysets.Set(ctx, "pipe:"+pipeID, "openai", "sk-pipe-1234"); err != nil {
		t.Fatal(err)
	}
	if r := e.Do("DELETE", "/v1/pipes/p", admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	list, err := e.Keysets.List(ctx, "pipe:"+pipeID)
	if err != nil || len(list) != 0 {
		t.Fatalf("pipe keyset survived: %v %v", list, err)
	}
}

func TestPipeVisibilityAndKeys(t *testing.T) {
	e := startEnv(t)
	bob := e.UserWithKey("bob")
	pubKey := e.createPipe(t, admin, map[string]any{"name": "pub"})
	e.createPipe(t, admin, map[string]any{"name": "priv", "status": "private"})
	msgs := []any{map[string]string{"role": "user", "content": "hi"}}

	// v1 reads are scoped to the caller's own pipes.
	if r := e.Do("GET", "/v1/pipes/pub", bob, nil); r.Status != 404 {
		t.Fatalf("bob v1 get: %d", r.Status)
	}
	var list []any
	e.Do("GET", "/v1/pipes", bob, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("bob lists alice's pipes: %v", list)
	}
	// Public pipes are readable by other accounts through the owner-qualified
	// beta path; private ones are not found.
	cases := []struct {
		key, path string
		status    int
	}{
		{bob, "/beta/pipes/admin/pub", 200},
		{bob, "/beta/pipes/admin/priv", 404},
		{admin, "/beta/pipes/admin/priv", 200},
		{pubKey, "/beta/pipes/admin/pub", 200},
		{pubKey, "/beta/pipes/admin/priv", 404},
	}
	for _, c := range cases {
		if r := e.Do("GET", c.path, c.key, nil); r.Status != c.status {
			t.Errorf("GET %s: %d, want %d (%s)", c.path, r.Status, c.status, r.Body)
		}
	}
	// Nobody else can update or run them.
	if r := e.Do("PATCH", "/beta/pipes/admin/pub", bob, map[string]any{"description": "x"}); r.Status != 403 {
		t.Errorf("bob updates public pipe: %d", r.Status)
	}
	if r := e.Do("PATCH", "/beta/pipes/admin/priv", bob, map[string]any{"description": "x"}); r.Status != 404 {
		t.Errorf("bob updates private pipe: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/pipes/run", bob, map[string]any{"name": "pub", "messages": msgs}); r.Status != 404 {
		t.Errorf("bob runs alice's pipe: %d", r.Status)
	}
	// A pipe key runs its own pipe only, and nothing else.
	if r := e.Do("POST", "/v1/pipes/run", pubKey, map[string]any{"name": "priv", "messages": msgs}); r.Status != 403 {
		t.Errorf("pipe key runs another pipe: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/run", pubKey, map[string]any{"name": "pub", "messages": msgs}); r.Status != 200 {
		t.Errorf("pipe key with its own name: %d %s", r.Status, r.Body)
	}
	for _, path := range []string{"/v1/pipes", "/v1/threads"} {
		if r := e.Do("GET", path, pubKey, nil); r.Status != 403 {
			t.Errorf("pipe key on %s: %d", path, r.Status)
		}
	}
	// A user key needs the name.
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"messages": msgs}); r.Status != 400 || !strings.Contains(string(r.Body), "name: is required") {
		t.Errorf("run without name: %d %s", r.Status, r.Body)
	}
	// Rotating the key revokes the old one.
	r := e.Do("POST", "/v1/pipes/pub/keys", admin, nil)
	var rot map[string]any
	r.JSON(t, &rot)
	newKey, _ := rot["api_key"].(string)
	if r.Status != 200 || !strings.HasPrefix(newKey, "hth_pipe_") {
		t.Fatalf("rotate: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/run", pubKey, map[string]any{"messages": msgs}); r.Status != 401 {
		t.Errorf("old key after rotate: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/pipes/run", newKey, map[string]any{"messages": msgs}); r.Status != 200 {
		t.Errorf("new key: %d %s", r.Status, r.Body)
	}
}

func TestPipeOrgOwnership(t *testing.T) {
	e := startEnv(t)
	e.UserWithKey("carol")
	org := e.OrgWithKey("acme", "carol")
	r := e.Do("POST", "/v1/pipes", org, map[string]any{"name": "support"})
	var cv map[string]any
	r.JSON(t, &cv)
	if r.Status != 200 || cv["owner_login"] != "acme" || cv["url"] != e.URL+"/studio/pipes/acme/support" {
		t.Fatalf("org create: %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/v1/pipes/support", admin, nil); r.Status != 404 {
		t.Fatalf("admin sees org pipe: %d", r.Status)
	}
	raw, _ := json.Marshal(cv)
	if strings.Contains(string(raw), "admin") {
		t.Fatalf("leak: %s", raw)
	}
}

func TestPipesAndThreadsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	ts := servertest.StartDir(t, dir)
	r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "model": "hearth:echo", "description": "kept"})
	var cv map[string]any
	r.JSON(t, &cv)
	key := cv["api_key"].(string)
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"messages": []any{map[string]string{"role": "user", "content": "one"}}})
	thread := r.Header.Get("lb-thread-id")
	if r.Status != 200 || thread == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	ts.Stop()
	ts = servertest.StartDir(t, dir)
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"threadId": thread, "messages": []any{map[string]string{"role": "user", "content": "two"}}})
	if r.Status != 200 || r.Header.Get("lb-thread-id") != thread {
		t.Fatalf("after restart: %d %s", r.Status, r.Body)
	}
	var msgs []map[string]any
	ts.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 4 || msgs[0]["content"] != "one" || msgs[3]["content"] != "two" {
		t.Fatalf("thread after restart %v", msgs)
	}
	ts.RunLog.Flush()
	var page struct{ Data []map[string]any }
	ts.Do("GET", "/v1/pipes/p/runs", admin, nil).JSON(t, &page)
	if len(page.Data) != 2 {
		t.Fatalf("run records after restart: %v", page.Data)
	}
}
