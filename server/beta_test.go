package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func TestBetaPipeCreate(t *testing.T) {
	e := startEnv(t)
	e.UserWithKey("carol")
	org := e.OrgWithKey("acme", "carol")
	// User path, defaults.
	r := e.Do("POST", "/beta/user/pipes", admin, map[string]any{"name": "b1"})
	var got map[string]any
	r.JSON(t, &got)
	key, _ := got["api_key"].(string)
	delete(got, "api_key")
	want := map[string]any{"name": "b1", "type": "generate", "description": "", "status": "public", "owner_login": "admin",
		"url": e.URL + "/studio/pipes/admin/b1"}
	if r.Status != 200 || !strings.HasPrefix(key, "hth_pipe_") || !reflect.DeepEqual(got, want) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var v1 map[string]any
	e.Do("GET", "/v1/pipes/b1", admin, nil).JSON(t, &v1)
	if v1["model"] != "openai:gpt-3.5-turbo" || v1["presence_penalty"] != 1.0 || len(v1["messages"].([]any)) != 2 {
		t.Fatalf("beta defaults %v", v1)
	}
	// Org path with every config field, read back through v1 (one model).
	body := map[string]any{
		"name": "b2", "description": "desc", "status": "private", "type": "chat",
		"config": map[string]any{
			"meta": map[string]any{"stream": false, "json": true, "store": false, "moderate": true},
			"model": map[string]any{"name": "claude-x", "provider": "Anthropic", "params": map[string]any{"top_p": 0.5, "max_tokens": 99,
				"temperature": 0.1, "presence_penalty": 0, "frequency_penalty": 0.5, "stop": []string{"X"}}},
			"prompt": map[string]any{"system": "Sys {{v}}", "opening": "Hi!", "safety": "Safe", "json": "JSON please", "rag": "Use context",
				"messages":  []any{user("few"), map[string]any{"role": "assistant", "content": "shot"}},
				"variables": []any{map[string]string{"name": "v", "value": "1"}}},
		},
	}
	r = e.Do("POST", "/beta/org/acme/pipes", org, body)
	r.JSON(t, &got)
	if r.Status != 200 || got["owner_login"] != "acme" || got["type"] != "chat" || got["status"] != "private" {
		t.Fatalf("org create %d %s", r.Status, r.Body)
	}
	e.Do("GET", "/v1/pipes/b2", org, nil).JSON(t, &v1)
	checks := map[string]any{"model": "anthropic:claude-x", "stream": false, "json": true, "store": false, "moderate": true,
		"top_p": 0.5, "max_tokens": 99.0, "temperature": 0.1, "presence_penalty": 0.0, "frequency_penalty": 0.5, "stop": []any{"X"},
		"variables": []any{map[string]any{"name": "v", "value": "1"}}}
	for k, want := range checks {
		if !reflect.DeepEqual(v1[k], want) {
			t.Errorf("%s = %#v, want %#v", k, v1[k], want)
		}
	}
	var roles []string
	for _, m := range v1["messages"].([]any) {
		mm := m.(map[string]any)
		name, _ := mm["name"].(string)
		roles = append(roles, mm["role"].(string)+"/"+name+"="+mm["content"].(string))
	}
	wantRoles := []string{"system/=Sys {{v}}", "system/opening=Hi!", "system/safety=Safe", "system/json=JSON please", "system/rag=Use context", "user/=few", "assistant/=shot"}
	if !reflect.DeepEqual(roles, wantRoles) {
		t.Fatalf("messages %q", roles)
	}
	// Key kinds and org match are enforced; errors name the beta fields.
	for _, tc := range []struct {
		path, key string
		body      map[string]any
		status    int
		msg       string
	}{
		{"/beta/org/acme/pipes", admin, map[string]any{"name": "x"}, 403, "org key"},
		{"/beta/user/pipes", org, map[string]any{"name": "x"}, 403, "user key"},
		{"/beta/org/other/pipes", org, map[string]any{"name": "x"}, 403, "belongs to"},
		{"/beta/user/pipes", admin, map[string]any{"name": "b1"}, 409, "already exists"},
		{"/beta/user/pipes", admin, map[string]any{"name": "x", "config": map[string]any{"model": map[string]any{"params": map[string]any{"temperature": 5}}}}, 400, "config.model.params.temperature"},
		{"/beta/user/pipes", admin, map[string]any{"name": "x", "config": map[string]any{"model": map[string]any{"provider": "nope"}}}, 400, "config.model.name"},
		{"/beta/user/pipes", admin, map[string]any{"name": "x", "config": map[string]any{"memorysets": []string{"nope"}}}, 400, "config.memorysets[0].name"},
		{"/beta/user/pipes", admin, map[string]any{"name": "x", "type": "run2"}, 400, "type"},
	} {
		r := e.Do("POST", tc.path, tc.key, tc.body)
		if r.Status != tc.status || !strings.Contains(string(r.Body), tc.msg) {
			t.Errorf("POST %s %v: %d %s", tc.path, tc.body, r.Status, r.Body)
		}
	}
}

func TestBetaPipeUpdateAndGet(t *testing.T) {
	e := startEnv(t)
	e.Do("POST", "/beta/user/pipes", admin, map[string]any{"name": "b"})
	for i, method := range []string{"POST", "PUT", "PATCH"} {
		temp := []float64{0.1, 0.2, 0.3}[i]
		r := e.Do(method, "/beta/pipes/admin/b", admin, map[string]any{"config": map[string]any{"model": map[string]any{"params": map[string]any{"temperature": temp}}}})
		var got map[string]any
		r.JSON(t, &got)
		if r.Status != 200 || got["api_key"] != "" || got["name"] != "b" || got["type"] != "generate" {
			t.Fatalf("%s: %d %s", method, r.Status, r.Body)
		}
		var v1 map[string]any
		e.Do("GET", "/v1/pipes/b", admin, nil).JSON(t, &v1)
		if v1["temperature"] != temp || v1["model"] != "openai:gpt-3.5-turbo" {
			t.Fatalf("%s: %v", method, v1)
		}
	}
	// Partial updates: the model name alone keeps the provider; a prompt
	// slot alone keeps the others; tools, tool_choice and memorysets.
	r := e.Do("PATCH", "/beta/pipes/admin/b", admin, map[string]any{
		"description": "new",
		"config": map[string]any{
			"model":      map[string]any{"name": "gpt-4o", "tool_choice": "required", "parallel_tool_calls": false},
			"prompt":     map[string]any{"safety": "Be safe"},
			"tools":      []any{map[string]any{"type": "function", "function": map[string]any{"name": "t"}}},
			"memorysets": []any{"docs", map[string]string{"name": "faq"}},
		}})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var b struct {
		Description string `json:"description"`
		Config      struct {
			Model struct {
				Name, Provider    string
				ToolChoice        any  `json:"tool_choice"`
				ParallelToolCalls bool `json:"parallel_tool_calls"`
				Params            struct {
					Temperature float64 `json:"temperature"`
				} `json:"params"`
			} `json:"model"`
			Prompt struct {
				System, Opening, Safety string
				Messages                []any `json:"messages"`
			} `json:"prompt"`
			Tools      []engine.Tool `json:"tools"`
			Memorysets []string      `json:"memorysets"`
			Meta       struct{ Stream, Store bool }
		} `json:"config"`
	}
	e.Do("GET", "/beta/pipes/admin/b", admin, nil).JSON(t, &b)
	c := b.Config
	if b.Description != "new" || c.Model.Name != "gpt-4o" || c.Model.Provider != "openai" || c.Model.ToolChoice != "required" ||
		c.Model.ParallelToolCalls || c.Model.Params.Temperature != 0.3 || c.Prompt.Safety != "Be safe" ||
		c.Prompt.System != "You're a helpful AI assistant." || c.Prompt.Opening == "" || len(c.Prompt.Messages) != 0 ||
		len(c.Tools) != 1 || !reflect.DeepEqual(c.Memorysets, []string{"docs", "faq"}) || !c.Meta.Stream || !c.Meta.Store {
		t.Fatalf("beta get %+v", b)
	}
	// An empty prompt removes its slot.
	e.Do("PATCH", "/beta/pipes/admin/b", admin, map[string]any{"config": map[string]any{"prompt": map[string]any{"opening": ""}}})
	e.Do("GET", "/beta/pipes/admin/b", admin, nil).JSON(t, &b)
	if b.Config.Prompt.Opening != "" || b.Config.Prompt.Safety != "Be safe" {
		t.Fatalf("slot removal %+v", b.Config.Prompt)
	}
	if r := e.Do("PATCH", "/beta/pipes/admin/nope", admin, map[string]any{}); r.Status != 404 {
		t.Fatalf("unknown: %d", r.Status)
	}
	if r := e.Do("PATCH", "/beta/pipes/admin/b", admin, map[string]any{"status": "hidden"}); r.Status != 400 {
		t.Fatalf("invalid: %d", r.Status)
	}
}

func TestBetaRuns(t *testing.T) {
	e := startEnv(t)
	r := e.Do("POST", "/beta/user/pipes", admin, map[string]any{"name": "b", "config": map[string]any{"meta": map[string]any{"stream": false}}})
	var cv map[string]any
	r.JSON(t, &cv)
	key := cv["api_key"].(string)
	for _, path := range []string{"/beta/generate", "/beta/chat", "/beta/pipes/run"} {
		// Pipe keys only.
		if r := e.Do("POST", path, admin, map[string]any{"messages": []any{user("x")}}); r.Status != 403 {
			t.Fatalf("%s with a user key: %d", path, r.Status)
		}
		r := e.Do("POST", path, key, map[string]any{"messages": []any{user("Hi {{who}}")}, "variables": []any{map[string]string{"name": "who", "value": "there"}}})
		var got struct {
			Success    bool   `json:"success"`
			Completion string `json:"completion"`
			Raw        struct {
				Object string `json:"object"`
			} `json:"raw"`
		}
		r.JSON(t, &got)
		if r.Status != 200 || !got.Success || got.Completion != "Hello from the fake model." || got.Raw.Object != "chat.completion" || r.Header.Get("lb-thread-id") == "" {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
		msgs := e.llm.last(t).Messages
		if last := msgs[len(msgs)-1].Content.String(); last != "Hi there" {
			t.Fatalf("%s: variables %q", path, last)
		}
	}
	// Chat continues a thread.
	r = e.Do("POST", "/beta/chat", key, map[string]any{"messages": []any{user("one")}})
	thread := r.Header.Get("lb-thread-id")
	e.Do("POST", "/beta/chat", key, map[string]any{"threadId": thread, "messages": []any{user("two")}})
	if got := plain(e.llm.last(t).Messages); got[len(got)-3] != "user: one" || got[len(got)-1] != "user: two" {
		t.Fatalf("beta chat history %q", got)
	}
	// Streaming: one JSON chunk per line, as an octet stream.
	e.llm.enqueue(fakeReply{Text: "a b"})
	r = e.Do("POST", "/beta/pipes/run", key, map[string]any{"stream": true, "messages": []any{user("x")}})
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/octet-stream" || r.Header.Get("lb-thread-id") == "" {
		t.Fatalf("%d %v", r.Status, r.Header)
	}
	e.RunLog.Flush()
	var runs struct{ Data []engine.RunRecord }
	e.Do("GET", "/v1/runs?limit=1", admin, nil).JSON(t, &runs)
	if r := runs.Data[0]; !r.Stream || r.Endpoint != "/beta/pipes/run" {
		t.Fatalf("beta stream record %+v", r)
	}
	var chunks []engine.ChatChunk
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	for sc.Scan() {
		var c engine.ChatChunk
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		chunks = append(chunks, c)
	}
	checkChunks(t, chunks)
	if text, _, finish, _ := assemble(chunks); text != "a b" || finish != "stop" || strings.Contains(string(r.Body), "data:") {
		t.Fatalf("ndjson %q", r.Body)
	}
	// A pipe whose stream setting is on streams when the body says nothing;
	// Accept: text/event-stream asks for SSE.
	e.Do("PATCH", "/beta/pipes/admin/b", admin, map[string]any{"config": map[string]any{"meta": map[string]any{"stream": true}}})
	r = e.Do("POST", "/beta/chat", key, map[string]any{"messages": []any{user("x")}}, "Accept", "text/event-stream")
	if r.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Fatalf("sse: %v %s", r.Header, r.Body)
	}
	decodeStream(t, r.Body)
	r = e.Do("POST", "/beta/chat", key, map[string]any{"messages": []any{user("x")}})
	if r.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("pipe stream setting ignored: %v", r.Header)
	}
}
