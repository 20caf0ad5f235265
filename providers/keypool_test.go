package providers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
)

// poolUpstream is an OpenAI-wire chat host that counts calls per key and
// answers a key listed in refuse with that status (429 with Retry-After).
type poolUpstream struct {
	mu     sync.Mutex
	calls  map[string]int
	refuse map[string]int
}

func (u *poolUpstream) handler(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	u.mu.Lock()
	u.calls[key]++
	status := u.refuse[key]
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if status != 0 {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(status)
		io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit_error"}}`)
		return
	}
	io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
}

func (u *poolUpstream) take() map[string]int {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := u.calls
	u.calls = map[string]int{}
	return c
}

func (u *poolUpstream) set(key string, status int) {
	u.mu.Lock()
	u.refuse[key] = status
	u.mu.Unlock()
}

// TestKeyPool: a server key pool spreads calls over its keys; a 429 on
// key 1 moves the same call to key 2 at once (no retry on key 1) and
// keeps key 1 out until Retry-After has passed, then both serve again; a
// 401 cools a key down too; the other errors do not switch keys.
func TestKeyPool(t *testing.T) {
	up := &poolUpstream{calls: map[string]int{}, refuse: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(up.handler))
	defer srv.Close()
	reg, err := New(Config{Providers: map[string]ProviderConfig{"openai": {BaseURL: srv.URL + "/v1", APIKey: "k1, k2"}},
		Retry: RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Minute},
		Sleep: func(ctx context.Context, d time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1_700_000_000, 0)
	reg.pool.now = func() time.Time { return clock }
	ref := engine.ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	chat, err := reg.ChatModel(ref)
	if err != nil {
		t.Fatal(err)
	}
	call := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if _, err := chat.Chat(context.Background(), &engine.ChatRequest{Model: ref.Model, APIKey: reg.ServerKey("openai"),
				Messages: []engine.Message{{Role: "user", Content: engine.TextContent("hi")}}}); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
	}
	call(4)
	if got := up.take(); got["k1"] != 2 || got["k2"] != 2 {
		t.Fatalf("spread: %v", got)
	}

	up.set("k1", http.StatusTooManyRequests)
	call(4)
	if got := up.take(); got["k1"] != 1 || got["k2"] != 4 {
		t.Fatalf("429 on k1 (one try, then k2 only): %v", got)
	}
	up.set("k1", 0)
	clock = clock.Add(29 * time.Second)
	call(2)
	if got := up.take(); got["k1"] != 0 || got["k2"] != 2 {
		t.Fatalf("k1 still cooling: %v", got)
	}
	clock = clock.Add(2 * time.Second)
	call(4)
	if got := up.take(); got["k1"] != 2 || got["k2"] != 2 {
		t.Fatalf("k1 back after Retry-After: %v", got)
	}

	up.set("k2", http.StatusUnauthorized)
	call(3)
	if got := up.take(); got["k1"] != 3 || got["k2"] != 1 {
		t.Fatalf("401 on k2: %v", got)
	}

	// k1 rate limited too: the call fails with k1's 429 (k2 is cooling),
	// and the next one, with both cooling, tries only the key whose
	// cool-down ends first.
	up.set("k1", http.StatusTooManyRequests)
	for i := 0; i < 2; i++ {
		_, err = chat.Chat(context.Background(), &engine.ChatRequest{Model: ref.Model, APIKey: "k1,k2",
			Messages: []engine.Message{{Role: "user", Content: engine.TextContent("hi")}}})
		if engine.ErrorCode(err) != engine.CodeRateLimited {
			t.Fatalf("all keys refused (%d): %v", i, err)
		}
		if got := up.take(); got["k1"] != 1 || got["k2"] != 0 {
			t.Fatalf("cooling keys tried by earliest end (%d): %v", i, got)
		}
	}
}

// TestKeyPoolSingleKey: one key keeps the normal retry policy.
func TestKeyPoolSingleKey(t *testing.T) {
	up := &poolUpstream{calls: map[string]int{}, refuse: map[string]int{"solo": http.StatusTooManyRequests}}
	srv := httptest.NewServer(http.HandlerFunc(up.handler))
	defer srv.Close()
	reg, err := New(Config{Providers: map[string]ProviderConfig{"openai": {BaseURL: srv.URL + "/v1"}},
		Retry: RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Minute},
		Sleep: func(ctx context.Context, d time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	chat, _ := reg.ChatModel(engine.ModelRef{Provider: "openai", Model: "m"})
	_, err = chat.Chat(context.Background(), &engine.ChatRequest{Model: "m", APIKey: "solo",
		Messages: []engine.Message{{Role: "user", Content: engine.TextContent("hi")}}})
	if engine.ErrorCode(err) != engine.CodeRateLimited || up.take()["solo"] != 3 {
		t.Fatalf("single key: %v", err)
	}
}
