package server_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// runEndpoints are the routes a pipe key runs its pipe through.
var runEndpoints = []string{"/v1/pipes/run", "/beta/generate", "/beta/chat", "/beta/pipes/run"}

// A pipe key may run with its pipe's own memories only: any other memory
// of the owner (or a missing one) is refused with 403 naming the field,
// before retrieval or the model runs. Owner keys keep choosing freely.
func TestPipeKeyMemoryScope(t *testing.T) {
	e := startEnv(t)
	e.mem.chunks = []engine.RAGChunk{{Text: "secret", DocName: "faq.md"}}
	key := e.createPipe(t, admin, map[string]any{"name": "rag", "memory": []any{map[string]string{"name": "docs"}}})
	bare := e.createPipe(t, admin, map[string]any{"name": "bare"})
	for _, ep := range runEndpoints {
		for _, c := range []struct {
			key  string
			mems []string
		}{{key, []string{"faq"}}, {key, []string{"docs", "faq"}}, {key, []string{"nope"}}, {bare, []string{"docs"}}} {
			calls, retrievals := e.llm.count(), len(e.mem.names)
			refs := []any{}
			for _, m := range c.mems {
				refs = append(refs, map[string]string{"name": m})
			}
			r := e.Do("POST", ep, c.key, map[string]any{"stream": false, "memory": refs, "messages": []any{user("q")}})
			field := "memory[" + map[bool]string{true: "1", false: "0"}[len(c.mems) == 2] + "].name"
			code, msg := errorOf(t, r)
			if r.Status != 403 || code != "FORBIDDEN" || !strings.Contains(msg, field) {
				t.Fatalf("%s memory %v: %d %s", ep, c.mems, r.Status, r.Body)
			}
			if e.llm.count() != calls || len(e.mem.names) != retrievals {
				t.Fatalf("%s memory %v: the model or retrieval ran for a refused run", ep, c.mems)
			}
		}
		r := e.Do("POST", ep, key, map[string]any{"stream": false, "memory": []any{map[string]string{"name": "docs"}}, "messages": []any{user("q")}})
		if r.Status != 200 || !reflect.DeepEqual(e.mem.names[len(e.mem.names)-1], []string{"docs"}) {
			t.Fatalf("%s own memory: %d %s", ep, r.Status, r.Body)
		}
	}
	r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "rag", "memory": []any{map[string]string{"name": "faq"}}, "messages": []any{user("q")}})
	if r.Status != 200 || !reflect.DeepEqual(e.mem.names[len(e.mem.names)-1], []string{"faq"}) {
		t.Fatalf("owner key with another memory: %d %s", r.Status, r.Body)
	}
}

// A pipe key continues only threads that runs of its own pipe created;
// threads of /v1/threads, of other pipes, and threads stored without the
// creating pipe (older releases) answer 404 on every run endpoint.
func TestPipeKeyThreadScope(t *testing.T) {
	e := startEnv(t)
	key := e.createPipe(t, admin, map[string]any{"name": "p"})
	other := e.createPipe(t, admin, map[string]any{"name": "other"})
	run := func(ep, k, thread string) (int, string) {
		body := map[string]any{"stream": false, "messages": []any{user("hi")}}
		if thread != "" {
			body["threadId"] = thread
		}
		if k == admin {
			body["name"] = "p"
		}
		r := e.Do("POST", ep, k, body)
		return r.Status, r.Header.Get("lb-thread-id")
	}
	_, own := run("/v1/pipes/run", key, "")
	_, byOwner := run("/v1/pipes/run", admin, "")
	_, ofOther := run("/v1/pipes/run", other, "")
	if r := e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "made-by-api"}); r.Status != 200 {
		t.Fatalf("create thread: %d %s", r.Status, r.Body)
	}
	// A thread record as releases before the pipe id was recorded stored it.
	legacy := `{"id":"legacy","owner":"admin","key":"legacykey0000000000","created_at":"2025-01-01T00:00:00Z","metadata":{},"next_seq":0,"pipe":"p"}`
	if err := e.Store.Update(context.Background(), func(tx engine.Tx) error {
		return tx.PutRaw("thread/admin/legacy", []byte(legacy))
	}); err != nil {
		t.Fatal(err)
	}
	for _, ep := range runEndpoints {
		for _, thread := range []string{own, byOwner} {
			if st, got := run(ep, key, thread); st != 200 || got != thread {
				t.Fatalf("%s: the pipe's own thread %s: %d %s", ep, thread, st, got)
			}
		}
		for _, thread := range []string{ofOther, "made-by-api", "legacy"} {
			calls := e.llm.count()
			r := e.Do("POST", ep, key, map[string]any{"stream": false, "threadId": thread, "messages": []any{user("hi")}})
			code, msg := errorOf(t, r)
			if r.Status != 404 || code != "NOT_FOUND" || !strings.Contains(msg, "threadId") || e.llm.count() != calls {
				t.Fatalf("%s: foreign thread %s: %d %s", ep, thread, r.Status, r.Body)
			}
		}
	}
	// The owner's key still continues every thread of the owner.
	for _, thread := range []string{ofOther, "made-by-api", "legacy"} {
		if st, _ := run("/v1/pipes/run", admin, thread); st != 200 {
			t.Fatalf("owner key on %s: %d", thread, st)
		}
	}
	// No thread is readable or writable by a pipe key through /v1/threads.
	for _, rt := range []struct{ method, path string }{
		{"GET", "/v1/threads"}, {"POST", "/v1/threads"}, {"GET", "/v1/threads/" + own},
		{"POST", "/v1/threads/" + own}, {"DELETE", "/v1/threads/" + own},
		{"GET", "/v1/threads/" + own + "/messages"}, {"POST", "/v1/threads/" + own + "/messages"},
	} {
		if r := e.Do(rt.method, rt.path, key, []any{user("x")}); r.Status != 403 {
			t.Fatalf("pipe key %s %s: %d %s", rt.method, rt.path, r.Status, r.Body)
		}
	}
}

// Every other run field that could name a resource: another pipe's name is
// refused, and the caller's own llmKey is used as given.
func TestPipeKeyOtherRunFields(t *testing.T) {
	e := startEnv(t)
	key := e.createPipe(t, admin, map[string]any{"name": "p"})
	e.createPipe(t, admin, map[string]any{"name": "other"})
	for _, ep := range runEndpoints {
		r := e.Do("POST", ep, key, map[string]any{"name": "other", "stream": false, "messages": []any{user("hi")}})
		if code, msg := errorOf(t, r); r.Status != 403 || code != "FORBIDDEN" || !strings.Contains(msg, `"other"`) {
			t.Fatalf("%s name of another pipe: %d %s", ep, r.Status, r.Body)
		}
	}
	r := e.Do("GET", "/beta/pipes/admin/other", key, nil)
	if r.Status != 404 {
		t.Fatalf("pipe key reads another pipe: %d %s", r.Status, r.Body)
	}
	// An org's pipe key learns the org, not the logins of its members.
	orgKey := e.OrgWithKey("acme", "admin")
	orgPipe := e.createPipe(t, orgKey, map[string]any{"name": "p"})
	var me map[string]any
	e.Do("GET", "/v1/me", orgPipe, nil).JSON(t, &me)
	if m, ok := me["members"].([]any); me["login"] != "acme" || !ok || len(m) != 0 {
		t.Fatalf("/v1/me for an org pipe key: %v", me)
	}
	e.Do("GET", "/v1/me", orgKey, nil).JSON(t, &me)
	if m, _ := me["members"].([]any); len(m) != 1 || m[0] != "admin" {
		t.Fatalf("/v1/me for the org key: %v", me)
	}
}
