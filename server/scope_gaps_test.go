package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

// TestScopedKeyCreatesInsideItsList: a key scoped to pipes or memories
// creates, upserts or renames only to names in its list, attaches only
// memories in its list, and uploads only into memories in its list; each
// crossing is a 403 naming the scope.
func TestScopedKeyCreatesInsideItsList(t *testing.T) {
	ts := servertest.Start(t)
	allowed(t, "create m1", ts.Do("POST", "/v1/memory", admin, map[string]any{"name": "m1", "embedding_model": hashModel}))
	allowed(t, "create m2", ts.Do("POST", "/v1/memory", admin, map[string]any{"name": "m2", "embedding_model": hashModel}))
	pipe := func(name string, kv ...any) map[string]any {
		b := map[string]any{"name": name, "model": "hearth:echo", "messages": []any{user("x")}}
		for i := 0; i+1 < len(kv); i += 2 {
			b[kv[i].(string)] = kv[i+1]
		}
		return b
	}

	key := scopedKey(t, ts, map[string]any{"pipes": []string{"a", "c"}, "memories": []string{"m1", "m3"}})
	allowed(t, "create a", ts.Do("POST", "/v1/pipes", key, pipe("a")))
	refused(t, "create z", ts.Do("POST", "/v1/pipes", key, pipe("z")), 403, "pipes")
	refused(t, "upsert z", ts.Do("POST", "/v1/pipes", key, pipe("z", "upsert", true)), 403, "pipes")
	refused(t, "beta create z", ts.Do("POST", "/beta/user/pipes", key, pipe("z")), 403, "pipes")
	refused(t, "rename a to z", ts.Do("POST", "/v1/pipes/a", key, map[string]any{"name": "z"}), 403, "pipes")
	allowed(t, "rename a to c", ts.Do("POST", "/v1/pipes/a", key, map[string]any{"name": "c"}))
	refused(t, "attach m2", ts.Do("POST", "/v1/pipes/c", key, map[string]any{"memory": []any{map[string]any{"name": "m2"}}}), 403, "memories")
	allowed(t, "attach m1", ts.Do("POST", "/v1/pipes/c", key, map[string]any{"memory": []any{map[string]any{"name": "m1"}}}))
	allowed(t, "create m3", ts.Do("POST", "/v1/memory", key, map[string]any{"name": "m3", "embedding_model": hashModel}))
	refused(t, "create m9", ts.Do("POST", "/v1/memory", key, map[string]any{"name": "m9", "embedding_model": hashModel}), 403, "memories")
	refused(t, "upload into m2", ts.Do("POST", "/v1/memory/documents", key, map[string]any{"memoryName": "m2", "documentName": "d.txt"}), 403, "memories")
	allowed(t, "upload into m1", ts.Do("POST", "/v1/memory/documents", key, map[string]any{"memoryName": "m1", "documentName": "d.txt"}))

	for _, gone := range []string{"/v1/pipes/z", "/v1/memory/m9/documents"} {
		if r := ts.Do("GET", gone, admin, nil); r.Status != 404 {
			t.Fatalf("GET %s after refusals: %d %s", gone, r.Status, r.Body)
		}
	}
}

// TestReadOnlyKeyRunsStoreNoThread: a read-only key runs a storing pipe
// (JSON and streamed) but no thread is created or appended and no thread
// id is answered; continuing a thread is refused with 403 naming
// read_only, and the thread is unchanged.
func TestReadOnlyKeyRunsStoreNoThread(t *testing.T) {
	ts := servertest.Start(t)
	allowed(t, "create pipe", ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "a", "model": "hearth:echo", "store": true}))
	r := ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "a", "messages": []any{user("first")}})
	allowed(t, "admin run", r)
	thread := r.Header.Get("lb-thread-id")
	if thread == "" {
		t.Fatal("admin run answered no thread id")
	}
	threads := func() int {
		var page struct {
			Data []any `json:"data"`
		}
		ts.Do("GET", "/v1/threads", admin, nil).JSON(t, &page)
		return len(page.Data)
	}
	messages := func() int {
		var msgs []any
		ts.Do("GET", "/v1/threads/"+thread+"/messages", admin, nil).JSON(t, &msgs)
		return len(msgs)
	}
	before, beforeMsgs := threads(), messages()

	key := scopedKey(t, ts, map[string]any{"read_only": true})
	for _, stream := range []bool{false, true} {
		r := ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "a", "stream": stream, "messages": []any{user("hello")}})
		allowed(t, "read-only run", r)
		if h := r.Header.Values("lb-thread-id"); len(h) != 0 {
			t.Fatalf("read-only run answered thread id %q", h)
		}
	}
	refused(t, "continue thread", ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "a", "threadId": thread, "messages": []any{user("more")}}), 403, "read_only")
	refused(t, "openai continue thread", ts.Do("POST", "/openai/v1/chat/completions", key,
		map[string]any{"model": "pipe:a", "messages": []any{user("more")}}, "lb-thread-id", thread), 403, "read_only")
	ts.RunLog.Flush()
	if n, m := threads(), messages(); n != before || m != beforeMsgs {
		t.Fatalf("read-only runs wrote threads: %d threads (was %d), %d messages (was %d)", n, before, m, beforeMsgs)
	}
}

// TestPipeScopedKeyRunList: a key scoped to pipes lists only the runs of
// its pipes, and ?pipe= outside its list is a 403 naming the scope.
func TestPipeScopedKeyRunList(t *testing.T) {
	ts := servertest.Start(t)
	for _, n := range []string{"a", "b"} {
		allowed(t, "create "+n, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": n, "model": "hearth:echo"}))
		allowed(t, "run "+n, ts.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": n, "messages": []any{user("x")}}))
	}
	allowed(t, "agent", ts.Do("POST", "/v1/agent/run", admin, map[string]any{"model": "hearth:echo", "input": "x"}))
	if n := len(listRuns(t, ts)); n != 3 {
		t.Fatalf("admin lists %d runs, want 3", n)
	}
	key := scopedKey(t, ts, map[string]any{"pipes": []string{"a"}})
	var page struct {
		Data []struct {
			Pipe string `json:"pipe"`
		} `json:"data"`
	}
	r := ts.Do("GET", "/v1/runs", key, nil)
	allowed(t, "scoped list", r)
	r.JSON(t, &page)
	if len(page.Data) != 1 || page.Data[0].Pipe != "a" {
		t.Fatalf("scoped key lists %+v, want the run of a only", page.Data)
	}
	refused(t, "list b", ts.Do("GET", "/v1/runs?pipe=b", key, nil), 403, "pipes")
}
