package server_test

import (
	"testing"

	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// runCompletion runs a pipe and returns the status and the completion.
func runCompletion(t *testing.T, ts *servertest.Server, key string, body map[string]any) (int, string) {
	t.Helper()
	r := ts.Do("POST", "/v1/pipes/run", key, body)
	var out struct {
		Completion string `json:"completion"`
	}
	if r.Status == 200 {
		r.JSON(t, &out)
	}
	return r.Status, out.Completion
}

// TestKeyCacheRevoke: keys are served from memory once used; a revoked key
// is refused on the very next request.
func TestKeyCacheRevoke(t *testing.T) {
	ts := servertest.Start(t)
	var k struct {
		Key  string `json:"key"`
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
	}
	ts.Do("POST", "/v1/keys", admin, map[string]any{"name": "second"}).JSON(t, &k)
	for range 2 {
		if r := ts.Do("GET", "/v1/pipes", k.Key, nil); r.Status != 200 {
			t.Fatalf("fresh key: %d %s", r.Status, r.Body)
		}
	}
	if r := ts.Do("DELETE", "/v1/keys/"+k.Info.ID, admin, nil); r.Status != 200 {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("GET", "/v1/pipes", k.Key, nil); r.Status != 401 {
		t.Fatalf("revoked key: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("GET", "/v1/pipes", admin, nil); r.Status != 200 {
		t.Fatalf("other key after revoke: %d %s", r.Status, r.Body)
	}
}

// TestPipeCacheInvalidation: a pipe's configuration and keys, once served
// from memory, follow an update, a key rotation, a rename and a delete on
// the next request.
func TestPipeCacheInvalidation(t *testing.T) {
	ts := servertest.Start(t)
	var p struct {
		APIKey string `json:"api_key"`
	}
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "c", "model": "hearth:echo",
		"messages": []any{user("one")}}).JSON(t, &p)
	for range 2 {
		if st, got := runCompletion(t, ts, p.APIKey, map[string]any{}); st != 200 || got != "one" {
			t.Fatalf("first runs: %d %q", st, got)
		}
		if st, got := runCompletion(t, ts, admin, map[string]any{"name": "c"}); st != 200 || got != "one" {
			t.Fatalf("first owner runs: %d %q", st, got)
		}
	}

	if r := ts.Do("POST", "/v1/pipes/c", admin, map[string]any{"messages": []any{user("two")}}); r.Status != 200 {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	if st, got := runCompletion(t, ts, p.APIKey, map[string]any{}); st != 200 || got != "two" {
		t.Fatalf("pipe key after update: %d %q", st, got)
	}
	if st, got := runCompletion(t, ts, admin, map[string]any{"name": "c"}); st != 200 || got != "two" {
		t.Fatalf("owner key after update: %d %q", st, got)
	}

	var rot struct {
		APIKey string `json:"api_key"`
	}
	ts.Do("POST", "/v1/pipes/c/keys", admin, nil).JSON(t, &rot)
	if st, _ := runCompletion(t, ts, p.APIKey, map[string]any{}); st != 401 {
		t.Fatalf("rotated-out key: %d", st)
	}
	if st, got := runCompletion(t, ts, rot.APIKey, map[string]any{}); st != 200 || got != "two" {
		t.Fatalf("new key: %d %q", st, got)
	}

	if r := ts.Do("POST", "/v1/pipes/c", admin, map[string]any{"name": "d"}); r.Status != 200 {
		t.Fatalf("rename: %d %s", r.Status, r.Body)
	}
	if st, _ := runCompletion(t, ts, admin, map[string]any{"name": "c"}); st != 404 {
		t.Fatalf("old name after rename: %d", st)
	}
	if st, got := runCompletion(t, ts, rot.APIKey, map[string]any{"name": "d"}); st != 200 || got != "two" {
		t.Fatalf("pipe key after rename: %d %q", st, got)
	}

	if r := ts.Do("DELETE", "/v1/pipes/d", admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if st, _ := runCompletion(t, ts, rot.APIKey, map[string]any{}); st != 401 {
		t.Fatalf("key of a deleted pipe: %d", st)
	}
	if st, _ := runCompletion(t, ts, admin, map[string]any{"name": "d"}); st != 404 {
		t.Fatalf("deleted pipe by name: %d", st)
	}
	// A pipe created again under the old name is a new pipe.
	ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "d", "model": "hearth:echo",
		"messages": []any{user("three")}}).JSON(t, &p)
	if st, got := runCompletion(t, ts, admin, map[string]any{"name": "d"}); st != 200 || got != "three" {
		t.Fatalf("recreated pipe: %d %q", st, got)
	}
}

// TestPipeRateLimitBeforeWork: the per-pipe limit refuses before the run
// does any work, so a request over budget is a 429 even when its work
// would have failed (here: a thread that does not exist).
func TestPipeRateLimitBeforeWork(t *testing.T) {
	ts := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.RateLimitPerPipe = 1; c.RateLimitBurst = 1 }))
	if r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "model": "hearth:echo"}); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	body := func(extra map[string]any) map[string]any {
		extra["name"], extra["messages"] = "p", []any{user("hi")}
		return extra
	}
	if st, _ := runCompletion(t, ts, admin, body(map[string]any{})); st != 200 {
		t.Fatalf("first run: %d", st)
	}
	r := ts.Do("POST", "/v1/pipes/run", admin, body(map[string]any{"threadId": "thread_missing"}))
	if r.Status != 429 {
		t.Fatalf("over budget with a missing thread: %d %s (the thread was loaded before the limit)", r.Status, r.Body)
	}
	r = ts.Do("POST", "/openai/v1/chat/completions", admin, map[string]any{"model": "pipe:p", "messages": []any{user("hi")}})
	if r.Status != 429 {
		t.Fatalf("openai surface over budget: %d %s", r.Status, r.Body)
	}
}
