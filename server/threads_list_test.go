package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestThreadListShowsPipeAndFirstMessage: GET /v1/threads gives each
// thread the pipe that created it (by its current name, after a rename),
// its message count and the start of its first user message; a thread
// made through /v1/threads has no pipe.
func TestThreadListShowsPipeAndFirstMessage(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "helper", "model": "hearth:echo"}), 200)
	long := strings.Repeat("é", 300)
	r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "helper", "stream": false,
		"messages": []any{map[string]any{"role": "user", "content": "first " + long}}})
	mustStatus(t, r, 200)
	runThread := r.Header.Get(server.HeaderThreadID)
	r = ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "helper", "stream": false, "threadId": runThread,
		"messages": []any{map[string]any{"role": "user", "content": "second"}}})
	mustStatus(t, r, 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes/helper", key, map[string]any{"name": "assistant"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/threads", key, map[string]any{"threadId": "plain-1",
		"messages": []any{map[string]any{"role": "system", "content": "be brief"}, map[string]any{"role": "user", "content": "hi"}}}), 200)

	var page struct {
		Data []map[string]any `json:"data"`
	}
	ts.Do("GET", "/v1/threads", key, nil).JSON(t, &page)
	got := map[string]map[string]any{}
	for _, d := range page.Data {
		got[d["id"].(string)] = d
	}
	run, plain := got[runThread], got["plain-1"]
	if run == nil || plain == nil {
		t.Fatalf("list %v lacks %s or plain-1", page.Data, runThread)
	}
	if run["pipe"] != "assistant" || run["pipe_id"] == nil || run["pipe_id"] == "" {
		t.Errorf("run thread: pipe %v, pipe_id %v; want the renamed pipe assistant and its id", run["pipe"], run["pipe_id"])
	}
	if run["message_count"] != float64(4) {
		t.Errorf("run thread: message_count %v; want 4 (two runs of question and answer)", run["message_count"])
	}
	fm, _ := run["first_message"].(string)
	if !strings.HasPrefix(fm, "first éé") || !strings.HasSuffix(fm, "…") || len([]rune(fm)) != 160 {
		t.Errorf("run thread: first_message %q (%d runes); want the first 159 runes and an ellipsis", fm, len([]rune(fm)))
	}
	if _, ok := plain["pipe"]; ok {
		t.Errorf("plain thread has pipe %v", plain["pipe"])
	}
	if plain["message_count"] != float64(2) || plain["first_message"] != "hi" {
		t.Errorf("plain thread: count %v, first %q; want 2 and the user message hi", plain["message_count"], plain["first_message"])
	}
	var one map[string]any
	ts.Do("GET", "/v1/threads/"+runThread, key, nil).JSON(t, &one)
	if one["pipe"] != "assistant" || one["pipe_id"] != run["pipe_id"] {
		t.Errorf("GET /v1/threads/{id}: pipe %v, pipe_id %v; want the list's", one["pipe"], one["pipe_id"])
	}
	if run["object"] != "thread" || run["metadata"] == nil || run["created_at"] == nil {
		t.Errorf("list entry lost the thread object's fields: %v", run)
	}
}
