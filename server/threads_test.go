package server_test

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestThreadLifecycle(t *testing.T) {
	e := startEnv(t)
	before := time.Now().Unix()
	// Create with a generated id, metadata and initial messages.
	r := e.Do("POST", "/v1/threads", admin, map[string]any{"metadata": map[string]string{"user": "u1"},
		"messages": []any{map[string]any{"role": "user", "content": "hello", "metadata": map[string]string{"k": "v"}}}})
	var th map[string]any
	r.JSON(t, &th)
	id, _ := th["id"].(string)
	if r.Status != 200 || !uuidRE.MatchString(id) || th["object"] != "thread" || th["created_at"].(float64) < float64(before) ||
		!reflect.DeepEqual(th["metadata"], map[string]any{"user": "u1"}) {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	// Get.
	var got map[string]any
	e.Do("GET", "/v1/threads/"+id, admin, nil).JSON(t, &got)
	if !reflect.DeepEqual(got, th) {
		t.Fatalf("get %v, want %v", got, th)
	}
	// Update merges metadata (the SDK repeats threadId in the body); null removes.
	r = e.Do("POST", "/v1/threads/"+id, admin, map[string]any{"threadId": id, "metadata": map[string]string{"topic": "x"}})
	r.JSON(t, &got)
	if r.Status != 200 || !reflect.DeepEqual(got["metadata"], map[string]any{"user": "u1", "topic": "x"}) {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	e.Do("POST", "/v1/threads/"+id, admin, map[string]any{"metadata": map[string]any{"user": nil}}).JSON(t, &got)
	if !reflect.DeepEqual(got["metadata"], map[string]any{"topic": "x"}) {
		t.Fatalf("remove key: %v", got)
	}
	// Append: a bare array (the SDK) and the documented wrapper.
	r = e.Do("POST", "/v1/threads/"+id+"/messages", admin, []any{
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
			"function": map[string]any{"name": "lookup", "arguments": `{"q":1}`}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "name": "lookup", "content": "42"},
	})
	var added []map[string]any
	r.JSON(t, &added)
	if r.Status != 200 || len(added) != 2 || added[0]["thread_id"] != id || added[1]["tool_call_id"] != "call_1" {
		t.Fatalf("append array: %d %s", r.Status, r.Body)
	}
	r = e.Do("POST", "/v1/threads/"+id+"/messages", admin, map[string]any{"messages": []any{
		map[string]any{"role": "assistant", "content": "done", "attachments": []any{map[string]any{"type": "file", "id": "f1"}}}}})
	if r.Status != 200 {
		t.Fatalf("append wrapped: %d %s", r.Status, r.Body)
	}
	// List: chronological, full shape with defaults.
	var msgs []map[string]any
	e.Do("GET", "/v1/threads/"+id+"/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 4 {
		t.Fatalf("messages %v", msgs)
	}
	keys := []string{"attachments", "content", "created_at", "id", "metadata", "name", "role", "thread_id", "tool_call_id", "tool_calls"}
	for _, m := range msgs {
		var got []string
		for k := range m {
			got = append(got, k)
		}
		if len(got) != len(keys) {
			t.Fatalf("message keys %v", m)
		}
		if !strings.HasPrefix(m["id"].(string), "msg_") || m["created_at"].(float64) < float64(before) {
			t.Fatalf("message %v", m)
		}
	}
	first := msgs[0]
	wantFirst := map[string]any{"role": "user", "content": "hello", "tool_call_id": nil, "tool_calls": []any{}, "name": nil,
		"attachments": []any{}, "metadata": map[string]any{"k": "v"}, "thread_id": id}
	for k, v := range wantFirst {
		if !reflect.DeepEqual(first[k], v) {
			t.Errorf("first[%s] = %#v, want %#v", k, first[k], v)
		}
	}
	if msgs[1]["content"] != nil || msgs[1]["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"] != `{"q":1}` {
		t.Errorf("tool call message %v", msgs[1])
	}
	if msgs[2]["name"] != "lookup" || msgs[3]["content"] != "done" || len(msgs[3]["attachments"].([]any)) != 1 {
		t.Errorf("messages %v", msgs[2:])
	}
	// Delete removes the thread and its messages.
	if r := e.Do("DELETE", "/v1/threads/"+id, admin, nil); r.Status != 200 || string(r.Body) != "{\"success\":true}\n" {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	for _, p := range []string{"/v1/threads/" + id, "/v1/threads/" + id + "/messages"} {
		if r := e.Do("GET", p, admin, nil); r.Status != 404 {
			t.Fatalf("GET %s after delete: %d", p, r.Status)
		}
	}
	if r := e.Do("DELETE", "/v1/threads/"+id, admin, nil); r.Status != 404 {
		t.Fatalf("delete twice: %d", r.Status)
	}
}

func TestThreadCustomIDsAndOwnership(t *testing.T) {
	e := startEnv(t)
	bob := e.UserWithKey("bob")
	if r := e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "thread_123"}); r.Status != 200 || !strings.Contains(string(r.Body), `"id":"thread_123"`) {
		t.Fatalf("custom id: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "thread_123"}); r.Status != 409 {
		t.Fatalf("duplicate: %d %s", r.Status, r.Body)
	}
	// Ids are per owner: bob's thread_123 is a different thread.
	if r := e.Do("POST", "/v1/threads", bob, map[string]any{"threadId": "thread_123", "metadata": map[string]string{"who": "bob"}}); r.Status != 200 {
		t.Fatalf("bob's own thread_123: %d", r.Status)
	}
	var th map[string]any
	e.Do("GET", "/v1/threads/thread_123", admin, nil).JSON(t, &th)
	if len(th["metadata"].(map[string]any)) != 0 {
		t.Fatalf("admin sees bob's thread: %v", th)
	}
	e.Do("DELETE", "/v1/threads/thread_123", bob, nil)
	if r := e.Do("GET", "/v1/threads/thread_123", admin, nil); r.Status != 200 {
		t.Fatal("bob deleted admin's thread")
	}
	// A re-created id starts empty.
	e.Do("POST", "/v1/threads/thread_123/messages", admin, []any{user("a")})
	e.Do("DELETE", "/v1/threads/thread_123", admin, nil)
	e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "thread_123"})
	var msgs []any
	e.Do("GET", "/v1/threads/thread_123/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 0 {
		t.Fatalf("re-created thread has old messages: %v", msgs)
	}
	for _, tc := range []struct{ method, path string }{
		{"GET", "/v1/threads/nope"}, {"POST", "/v1/threads/nope"}, {"DELETE", "/v1/threads/nope"},
		{"GET", "/v1/threads/nope/messages"}, {"POST", "/v1/threads/nope/messages"},
	} {
		var body any
		if tc.method == "POST" && strings.HasSuffix(tc.path, "/messages") {
			body = []any{user("x")}
		} else if tc.method == "POST" {
			body = map[string]any{"metadata": map[string]string{"a": "b"}}
		}
		if r := e.Do(tc.method, tc.path, admin, body); r.Status != 404 {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, r.Status, r.Body)
		}
	}
}

func TestThreadValidation(t *testing.T) {
	e := startEnv(t)
	e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "t1"})
	cases := []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"bad custom id", "POST", "/v1/threads", map[string]any{"threadId": "has space"}, "threadId"},
		{"metadata type", "POST", "/v1/threads", map[string]any{"metadata": map[string]any{"a": 1}}, "metadata"},
		{"metadata too many", "POST", "/v1/threads", map[string]any{"metadata": manyPairs(51)}, "metadata"},
		{"initial message role", "POST", "/v1/threads", map[string]any{"messages": []any{map[string]any{"role": "x", "content": "y"}}}, "messages[0].role"},
		{"append role missing", "POST", "/v1/threads/t1/messages", []any{map[string]any{"content": "y"}}, "messages[0].role"},
		{"append user content null", "POST", "/v1/threads/t1/messages", []any{map[string]any{"role": "user", "content": nil}}, "messages[0].content"},
		{"append tool id", "POST", "/v1/threads/t1/messages", []any{map[string]any{"role": "tool", "content": "r"}}, "messages[0].tool_call_id"},
		{"append tool call shape", "POST", "/v1/threads/t1/messages", []any{map[string]any{"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"type": "function", "function": map[string]any{"name": "f"}}}}}, "messages[0].tool_calls[0].id"},
		{"append tool calls on user", "POST", "/v1/threads/t1/messages", []any{map[string]any{"role": "user", "content": "x",
			"tool_calls": []any{map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "f"}}}}}, "messages[0].tool_calls"},
		{"append no messages key", "POST", "/v1/threads/t1/messages", map[string]any{"msgs": []any{}}, "messages"},
		{"append metadata type", "POST", "/v1/threads/t1/messages", []any{map[string]any{"role": "user", "content": "x", "metadata": map[string]any{"a": true}}}, "metadata"},
		{"update metadata value too long", "POST", "/v1/threads/t1", map[string]any{"metadata": map[string]string{"a": strings.Repeat("x", 513)}}, "metadata.a"},
		{"path id", "GET", "/v1/threads/bad%20id", nil, "threadId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do(tc.method, tc.path, admin, tc.body)
			var er apiErr
			r.JSON(t, &er)
			if r.Status != 400 || !strings.Contains(er.Error.Message, tc.field) {
				t.Fatalf("want 400 naming %q: %d %s", tc.field, r.Status, r.Body)
			}
		})
	}
	var msgs []any
	e.Do("GET", "/v1/threads/t1/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 0 {
		t.Fatalf("refused messages were stored: %v", msgs)
	}
}

func manyPairs(n int) map[string]string {
	m := map[string]string{}
	for i := 0; i < n; i++ {
		m[strings.Repeat("k", i+1)] = "v"
	}
	return m
}

func TestThreadList(t *testing.T) {
	e := startEnv(t)
	bob := e.UserWithKey("bob")
	var ids []string
	for i := 0; i < 5; i++ {
		var th map[string]any
		e.Do("POST", "/v1/threads", admin, map[string]any{}).JSON(t, &th)
		ids = append(ids, th["id"].(string))
		time.Sleep(2 * time.Millisecond)
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		NextCursor *string `json:"next_cursor"`
	}
	var seen []string
	cursor := ""
	for {
		path := "/v1/threads?limit=2"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		e.Do("GET", path, admin, nil).JSON(t, &page)
		for _, d := range page.Data {
			seen = append(seen, d.ID)
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	want := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("newest first\n got %v\nwant %v", seen, want)
	}
	e.Do("GET", "/v1/threads", bob, nil).JSON(t, &page)
	if len(page.Data) != 0 {
		t.Fatal("bob lists admin's threads")
	}
	e.Do("DELETE", "/v1/threads/"+ids[2], admin, nil)
	e.Do("GET", "/v1/threads", admin, nil).JSON(t, &page)
	if len(page.Data) != 4 {
		t.Fatalf("after delete %v", page.Data)
	}
}
