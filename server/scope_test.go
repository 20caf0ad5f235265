package server_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// scopedKey creates a key with the given scope fields as the admin.
func scopedKey(t *testing.T, ts *servertest.Server, scope map[string]any) string {
	t.Helper()
	body := map[string]any{"name": "scoped"}
	for k, v := range scope {
		body[k] = v
	}
	r := ts.Do("POST", "/v1/keys", admin, body)
	if r.Status != 200 {
		t.Fatalf("create scoped key %v: %d %s", scope, r.Status, r.Body)
	}
	var k struct {
		Key string `json:"key"`
	}
	r.JSON(t, &k)
	return k.Key
}

// refused checks that a response is the status given, naming the scope.
func refused(t *testing.T, what string, r *servertest.Response, status int, scope string) {
	t.Helper()
	if r.Status != status || !strings.Contains(string(r.Body), scope) {
		t.Fatalf("%s: want %d naming %q, got %d %s", what, status, scope, r.Status, r.Body)
	}
}

func allowed(t *testing.T, what string, r *servertest.Response) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("%s: %d %s", what, r.Status, r.Body)
	}
}

// TestScopedKeys: each scope of a key is refused when crossed and allowed
// inside, through HTTP: expiry (401, also once the key is cached), models
// (pipe runs, the agent and the OpenAI surface), pipes (runs and pipe
// routes), memories (retrieval and runs) and read-only.
func TestScopedKeys(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	ts := servertest.Start(t, servertest.WithServices(func(a *app.App) {
		a.Deps.Accounts.SetClock(func() time.Time { return time.Unix(0, clock.Load()) })
	}))
	for _, n := range []string{"a", "b"} {
		allowed(t, "create pipe "+n, ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": n, "model": "hearth:echo", "messages": []any{user(n)}}))
	}
	for _, n := range []string{"m1", "m2"} {
		allowed(t, "create memory "+n, ts.Do("POST", "/v1/memory", admin, map[string]any{"name": n, "embedding_model": hashModel}))
	}
	run := func(key, pipe string, extra ...any) *servertest.Response {
		body := map[string]any{"name": pipe, "messages": []any{user("hi")}}
		for i := 0; i+1 < len(extra); i += 2 {
			body[extra[i].(string)] = extra[i+1]
		}
		return ts.Do("POST", "/v1/pipes/run", key, body)
	}

	t.Run("expiry", func(t *testing.T) {
		key := scopedKey(t, ts, map[string]any{"expires_at": time.Unix(0, clock.Load()).Add(time.Hour).Format(time.RFC3339)})
		allowed(t, "before expiry", ts.Do("GET", "/v1/pipes", key, nil))
		allowed(t, "before expiry, cached", run(key, "a"))
		clock.Add(int64(2 * time.Hour))
		refused(t, "after expiry", ts.Do("GET", "/v1/pipes", key, nil), 401, "expires_at")
		refused(t, "run after expiry", run(key, "a"), 401, "expires_at")
		refused(t, "expiry in the past", ts.Do("POST", "/v1/keys", admin, map[string]any{"expires_at": "2001-01-01T00:00:00Z"}), 400, "expires_at")
	})

	t.Run("models", func(t *testing.T) {
		other := scopedKey(t, ts, map[string]any{"models": []string{"openai", "anthropic:claude-sonnet-4-5"}})
		refused(t, "pipe run", run(other, "a"), 403, "models")
		refused(t, "agent", ts.Do("POST", "/v1/agent/run", other, map[string]any{"model": "hearth:echo", "input": "x"}), 403, "models")
		refused(t, "openai", ts.Do("POST", "/openai/v1/chat/completions", other, map[string]any{"model": "hearth:echo", "messages": []any{user("x")}}), 403, "models")
		refused(t, "openai pipe", ts.Do("POST", "/openai/v1/chat/completions", other, map[string]any{"model": "pipe:a", "messages": []any{user("x")}}), 403, "models")
		for _, m := range []string{"hearth", "hearth:echo"} {
			ok := scopedKey(t, ts, map[string]any{"models": []string{m}})
			allowed(t, "pipe run with "+m, run(ok, "a"))
			allowed(t, "agent with "+m, ts.Do("POST", "/v1/agent/run", ok, map[string]any{"model": "hearth:echo", "input": "x"}))
			allowed(t, "openai with "+m, ts.Do("POST", "/openai/v1/chat/completions", ok, map[string]any{"model": "hearth:echo", "messages": []any{user("x")}}))
		}
		refused(t, "bad model entry", ts.Do("POST", "/v1/keys", admin, map[string]any{"models": []string{""}}), 400, "models[0]")
	})

	t.Run("pipes", func(t *testing.T) {
		key := scopedKey(t, ts, map[string]any{"pipes": []string{"a"}})
		allowed(t, "run a", run(key, "a"))
		refused(t, "run b", run(key, "b"), 403, "pipes")
		refused(t, "openai pipe b", ts.Do("POST", "/openai/v1/chat/completions", key, map[string]any{"model": "pipe:b", "messages": []any{user("x")}}), 403, "pipes")
		allowed(t, "get a", ts.Do("GET", "/v1/pipes/a", key, nil))
		refused(t, "get b", ts.Do("GET", "/v1/pipes/b", key, nil), 403, "pipes")
		refused(t, "beta update b", ts.Do("PATCH", "/beta/pipes/admin/b", key, map[string]any{"description": "x"}), 403, "pipes")
		refused(t, "create a key", ts.Do("POST", "/v1/keys", key, map[string]any{"name": "escape"}), 403, "scope")
	})

	t.Run("memories", func(t *testing.T) {
		key := scopedKey(t, ts, map[string]any{"memories": []string{"m1"}})
		allowed(t, "retrieve m1", ts.Do("POST", "/v1/memory/retrieve", key, map[string]any{"query": "q", "memory": []any{map[string]any{"name": "m1"}}}))
		refused(t, "retrieve m2", ts.Do("POST", "/v1/memory/retrieve", key, map[string]any{"query": "q", "memory": []any{map[string]any{"name": "m1"}, map[string]any{"name": "m2"}}}), 403, "memories")
		allowed(t, "get m1", ts.Do("GET", "/v1/memory/m1/documents", key, nil))
		refused(t, "get m2", ts.Do("GET", "/v1/memory/m2/documents", key, nil), 403, "memories")
		allowed(t, "run with m1", run(key, "a", "memory", []any{map[string]any{"name": "m1"}}))
		refused(t, "run with m2", run(key, "a", "memory", []any{map[string]any{"name": "m2"}}), 403, "memories")
	})

	t.Run("read_only", func(t *testing.T) {
		key := scopedKey(t, ts, map[string]any{"read_only": true})
		allowed(t, "list", ts.Do("GET", "/v1/pipes", key, nil))
		allowed(t, "run", run(key, "a"))
		refused(t, "update", ts.Do("POST", "/v1/pipes/a", key, map[string]any{"description": "x"}), 403, "read_only")
		refused(t, "create", ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "c"}), 403, "read_only")
		refused(t, "delete", ts.Do("DELETE", "/v1/memory/m1", key, nil), 403, "read_only")
		allowed(t, "pipe still there", ts.Do("GET", "/v1/pipes/a", admin, nil))
	})

	var keys []struct {
		Scope *struct {
			Pipes    []string `json:"pipes"`
			ReadOnly bool     `json:"read_only"`
		} `json:"scope"`
	}
	ts.Do("GET", "/v1/keys", admin, nil).JSON(t, &keys)
	var pipes, ro, plain int
	for _, k := range keys {
		switch {
		case k.Scope == nil:
			plain++
		case k.Scope.ReadOnly:
			ro++
		case len(k.Scope.Pipes) == 1 && k.Scope.Pipes[0] == "a":
			pipes++
		}
	}
	if plain != 1 || ro != 1 || pipes != 1 {
		t.Fatalf("key list scopes: %d plain, %d read-only, %d pipe-scoped", plain, ro, pipes)
	}
}
