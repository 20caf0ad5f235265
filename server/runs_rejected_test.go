package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

// A run that was accepted and failed before the model was called (no
// provider key, an unknown thread or memory) is in the run log as an
// error with its message; a malformed request or an unknown pipe is not a
// run and is not recorded (docs/pipes-and-threads.md#runs).
func TestRejectedRunsAreRecorded(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "nokey", "model": "openai:gpt-4o-mini"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "echo", "model": "hearth:echo"}), 200)
	msgs := []map[string]string{{"role": "user", "content": "hi"}}
	for _, tc := range []struct {
		body   map[string]any
		status int
	}{
		{map[string]any{"name": "nokey", "messages": msgs}, 400},
		{map[string]any{"name": "echo", "messages": msgs, "threadId": "no-such-thread"}, 404},
		{map[string]any{"name": "echo", "messages": msgs, "memory": []map[string]string{{"name": "nope"}}}, 400},
		{map[string]any{"name": "echo", "messages": "not a list"}, 400}, // malformed: not recorded
		{map[string]any{"name": "missing", "messages": msgs}, 404},      // no such pipe: not recorded
		{map[string]any{"name": "echo", "messages": msgs}, 200},
	} {
		if r := ts.Do("POST", "/v1/pipes/run", key, tc.body); r.Status != tc.status {
			t.Fatalf("%v: %d %s", tc.body, r.Status, r.Body)
		}
	}
	ts.RunLog.Flush()
	var page struct {
		Data []engine.RunRecord `json:"data"`
	}
	ts.Do("GET", "/v1/runs", key, nil).JSON(t, &page)
	if len(page.Data) != 4 {
		t.Fatalf("want 4 records, got %+v", page.Data)
	}
	// Newest first.
	want := []struct{ pipe, status, model, err string }{
		{"echo", "success", "hearth:echo", ""},
		{"echo", "error", "hearth:echo", `memory "nope" not found`},
		{"echo", "error", "hearth:echo", "not found"},
		{"nokey", "error", "openai:gpt-4o-mini", `no API key for provider "openai"`},
	}
	for i, w := range want {
		got := page.Data[i]
		if got.Pipe != w.pipe || got.Status != w.status || got.Model != w.model || !strings.Contains(got.Error, w.err) || (w.err == "") != (got.Error == "") {
			t.Errorf("record %d = %+v, want %+v", i, got, w)
		}
	}
}
