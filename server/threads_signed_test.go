package server_test

import (
	"context"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// signedThreadRE is the shape of a store:false run's thread id
// (docs/pipes-and-threads.md#threads): a version 7 UUID, the pipe's id and a
// MAC.
var signedThreadRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-[A-Za-z0-9]{20}-[0-9a-f]{16}$`)

// updateCountingStore counts the write transactions of the thread service.
type updateCountingStore struct {
	engine.Store
	updates atomic.Int64
}

func (s *updateCountingStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, fn)
}

// startCountingThreads starts a server whose thread service counts its
// write transactions.
func startCountingThreads(t *testing.T, opts ...servertest.Option) (*servertest.Server, *updateCountingStore) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	var cs *updateCountingStore
	ts := servertest.Start(t, append([]servertest.Option{servertest.WithProvider("openai", up.BaseURL(), "sk-server"),
		servertest.WithServices(func(a *app.App) {
			d := &a.Deps
			cs = &updateCountingStore{Store: a.ThreadWrites}
			d.Threads = engine.NewThreads(cs)
			d.Runner = engine.NewRunner(engine.RunnerConfig{Pipes: d.Pipes, Threads: d.Threads, Keysets: d.Keysets,
				Providers: d.Providers, Memories: d.Memory, Retriever: d.Memory, RunLog: a.RunLog})
		})}, opts...)...)
	return ts, cs
}

func pipeKeyOf(t *testing.T, ts *servertest.Server, body map[string]any) string {
	t.Helper()
	r := ts.Do("POST", "/v1/pipes", servertest.AdminKey, body)
	mustStatus(t, r, 200)
	var v struct {
		APIKey string `json:"api_key"`
	}
	r.JSON(t, &v)
	return v.APIKey
}

func runSigned(ts *servertest.Server, key string, body map[string]any) *servertest.Response {
	body["messages"] = []any{user("hi")}
	body["stream"] = false
	return ts.Do("POST", "/v1/pipes/run", key, body)
}

// TestStoreFalseRunWritesNoThread: runs of a store:false pipe, new or
// continuing their thread, with a user or a pipe key, open no write
// transaction of the thread store, and name a signed thread id.
func TestStoreFalseRunWritesNoThread(t *testing.T) {
	ts, cs := startCountingThreads(t)
	pk := pipeKeyOf(t, ts, map[string]any{"name": "nostore", "model": "openai:gpt-4o-mini", "store": false})
	mustStatus(t, runSigned(ts, pk, map[string]any{}), 200) // loads the key
	cs.updates.Store(0)
	var ids []string
	for range 3 {
		for _, key := range []string{pk, servertest.AdminKey} {
			r := runSigned(ts, key, map[string]any{"name": "nostore"})
			mustStatus(t, r, 200)
			id := r.Header.Get("lb-thread-id")
			if !signedThreadRE.MatchString(id) {
				t.Fatalf("thread id %q", id)
			}
			ids = append(ids, id)
			mustStatus(t, runSigned(ts, key, map[string]any{"name": "nostore", "threadId": id}), 200)
		}
	}
	if n := cs.updates.Load(); n != 0 {
		t.Fatalf("%d store:false runs opened %d write transactions of the thread store", 2*len(ids), n)
	}
	if ids[0] == ids[1] {
		t.Fatal("two runs named one thread")
	}
	// A store:true pipe writes its thread as before.
	mustStatus(t, ts.Do("POST", "/v1/pipes", servertest.AdminKey, map[string]any{"name": "keep", "model": "openai:gpt-4o-mini"}), 200)
	r := runSigned(ts, servertest.AdminKey, map[string]any{"name": "keep"})
	mustStatus(t, r, 200)
	if !uuidRE.MatchString(r.Header.Get("lb-thread-id")) || cs.updates.Load() != 1 {
		t.Fatalf("store:true run: thread %q, %d writes", r.Header.Get("lb-thread-id"), cs.updates.Load())
	}
}

// TestStoreFalseThreadAPI: the thread of a store:false run exists from its
// id: read, listed only once written, continued, extended by a store:true
// pipe, appended to, updated and deleted; other owners, other pipes' keys
// and tampered ids get 404, and so does every access after delete.
func TestStoreFalseThreadAPI(t *testing.T) {
	ts, _ := startCountingThreads(t)
	admin := servertest.AdminKey
	bob := ts.UserWithKey("bob")
	pk := pipeKeyOf(t, ts, map[string]any{"name": "nostore", "model": "openai:gpt-4o-mini", "store": false})
	otherKey := pipeKeyOf(t, ts, map[string]any{"name": "other", "model": "openai:gpt-4o-mini", "store": false})
	mustStatus(t, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "keep", "model": "openai:gpt-4o-mini"}), 200)
	before := time.Now().Unix()
	draw := func() string {
		r := runSigned(ts, pk, map[string]any{})
		mustStatus(t, r, 200)
		return r.Header.Get("lb-thread-id")
	}
	id := draw()
	var th map[string]any
	r := ts.Do("GET", "/v1/threads/"+id, admin, nil)
	mustStatus(t, r, 200)
	r.JSON(t, &th)
	if th["id"] != id || th["object"] != "thread" || th["pipe"] != "nostore" || !strings.HasPrefix(th["pipe_id"].(string), "pipe_") ||
		th["created_at"].(float64) < float64(before) || th["created_at"].(float64) > float64(time.Now().Unix()) {
		t.Fatalf("thread %s", r.Body)
	}
	if md, ok := th["metadata"].(map[string]any); !ok || len(md) != 0 {
		t.Fatalf("metadata %s", r.Body)
	}
	if r := ts.Do("GET", "/v1/threads/"+id+"/messages", admin, nil); r.Status != 200 || strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("messages %d %s", r.Status, r.Body)
	}
	if r := ts.Do("GET", "/v1/threads", admin, nil); r.Status != 200 || strings.Contains(string(r.Body), id) {
		t.Fatalf("an unwritten thread is listed: %s", r.Body)
	}
	tampered := id[:len(id)-1] + map[bool]string{true: "1", false: "0"}[id[len(id)-1] == '0']
	for what, r := range map[string]*servertest.Response{
		"other owner":      ts.Do("GET", "/v1/threads/"+id, bob, nil),
		"other owner msgs": ts.Do("GET", "/v1/threads/"+id+"/messages", bob, nil),
		"tampered":         ts.Do("GET", "/v1/threads/"+tampered, admin, nil),
		"tampered run":     runSigned(ts, pk, map[string]any{"threadId": tampered}),
		"other pipe key":   runSigned(ts, otherKey, map[string]any{"threadId": id}),
	} {
		if r.Status != 404 {
			t.Errorf("%s: %d %s", what, r.Status, r.Body)
		}
	}
	// Continued by its own store:false pipe: read, not extended.
	r = runSigned(ts, pk, map[string]any{"threadId": id})
	mustStatus(t, r, 200)
	if r.Header.Get("lb-thread-id") != id {
		t.Fatalf("continued under %q", r.Header.Get("lb-thread-id"))
	}
	if r := ts.Do("GET", "/v1/threads/"+id+"/messages", admin, nil); strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("a store:false run extended the thread: %s", r.Body)
	}
	// Continued by a store:true pipe of the owner: extended and written.
	mustStatus(t, runSigned(ts, admin, map[string]any{"name": "keep", "threadId": id}), 200)
	var msgs []map[string]any
	r = ts.Do("GET", "/v1/threads/"+id+"/messages", admin, nil)
	r.JSON(t, &msgs)
	if len(msgs) != 2 || msgs[0]["content"] != "hi" || msgs[1]["role"] != "assistant" {
		t.Fatalf("after a store:true run: %s", r.Body)
	}
	if r := ts.Do("GET", "/v1/threads", admin, nil); !strings.Contains(string(r.Body), id) {
		t.Fatalf("a written thread is not listed: %s", r.Body)
	}
	r = ts.Do("GET", "/v1/threads/"+id, admin, nil)
	r.JSON(t, &th)
	if th["pipe"] != "nostore" || th["created_at"].(float64) < float64(before) {
		t.Fatalf("written thread %s", r.Body)
	}

	// Appended to and updated through /v1/threads.
	id2 := draw()
	mustStatus(t, ts.Do("POST", "/v1/threads/"+id2+"/messages", admin, []any{user("appended")}), 200)
	r = ts.Do("GET", "/v1/threads/"+id2+"/messages", admin, nil)
	r.JSON(t, &msgs)
	if len(msgs) != 1 || msgs[0]["content"] != "appended" || msgs[0]["thread_id"] != id2 {
		t.Fatalf("appended: %s", r.Body)
	}
	id3 := draw()
	r = ts.Do("POST", "/v1/threads/"+id3, admin, map[string]any{"metadata": map[string]any{"k": "v"}})
	mustStatus(t, r, 200)
	if r.JSON(t, &th); th["pipe"] != "nostore" || th["id"] != id3 {
		t.Fatalf("update answer: %s", r.Body)
	}
	r = ts.Do("GET", "/v1/threads/"+id3, admin, nil)
	r.JSON(t, &th)
	if md, _ := th["metadata"].(map[string]any); md["k"] != "v" || th["pipe"] != "nostore" {
		t.Fatalf("updated: %s", r.Body)
	}

	// Deleted, written or not: every later access is 404.
	id4 := draw()
	for _, d := range []string{id4, id2} {
		mustStatus(t, ts.Do("DELETE", "/v1/threads/"+d, admin, nil), 200)
		for what, r := range map[string]*servertest.Response{
			"get":      ts.Do("GET", "/v1/threads/"+d, admin, nil),
			"messages": ts.Do("GET", "/v1/threads/"+d+"/messages", admin, nil),
			"append":   ts.Do("POST", "/v1/threads/"+d+"/messages", admin, []any{user("x")}),
			"update":   ts.Do("POST", "/v1/threads/"+d, admin, map[string]any{"metadata": map[string]any{"k": "v"}}),
			"continue": runSigned(ts, pk, map[string]any{"threadId": d}),
			"extend":   runSigned(ts, admin, map[string]any{"name": "keep", "threadId": d}),
			"delete":   ts.Do("DELETE", "/v1/threads/"+d, admin, nil),
		} {
			if r.Status != 404 {
				t.Errorf("%s after delete: %d %s", what, r.Status, r.Body)
			}
		}
	}
}

// TestStoreFalseThreadSurvivesRestart: a store:false run's thread id, and
// the deletion of another, hold after the server restarts on its data dir.
func TestStoreFalseThreadSurvivesRestart(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	dir := t.TempDir()
	opt := servertest.WithProvider("openai", up.BaseURL(), "sk-server")
	ts := servertest.StartDir(t, dir, opt)
	pk := pipeKeyOf(t, ts, map[string]any{"name": "nostore", "model": "openai:gpt-4o-mini", "store": false})
	var ids []string
	for range 2 {
		r := runSigned(ts, pk, map[string]any{})
		mustStatus(t, r, 200)
		ids = append(ids, r.Header.Get("lb-thread-id"))
	}
	mustStatus(t, ts.Do("DELETE", "/v1/threads/"+ids[1], servertest.AdminKey, nil), 200)
	ts.Stop()
	ts = servertest.StartDir(t, dir, opt)
	mustStatus(t, ts.Do("GET", "/v1/threads/"+ids[0], servertest.AdminKey, nil), 200)
	if r := runSigned(ts, pk, map[string]any{"threadId": ids[0]}); r.Status != 200 || r.Header.Get("lb-thread-id") != ids[0] {
		t.Fatalf("continue after restart: %d %s", r.Status, r.Body)
	}
	mustStatus(t, ts.Do("GET", "/v1/threads/"+ids[1], servertest.AdminKey, nil), 404)
}
