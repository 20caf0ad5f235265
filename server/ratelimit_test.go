package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

func TestLimiterRefillsAndRefuses(t *testing.T) {
	l := newLimiter(60, 3) // one a second, bursts of 3
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	for i, want := range []int{2, 1, 0} {
		d := l.take("k")
		if !d.allowed || d.remaining != want || d.limit != 3 {
			t.Fatalf("take %d: %+v", i, d)
		}
	}
	d := l.take("k")
	if d.allowed || d.retry != time.Second || d.reset != 3*time.Second {
		t.Fatalf("empty bucket: %+v", d)
	}
	now = now.Add(1500 * time.Millisecond)
	if d := l.take("k"); !d.allowed || d.remaining != 0 {
		t.Fatalf("after refill: %+v", d)
	}
	if d := l.take("other"); !d.allowed || d.remaining != 2 {
		t.Fatalf("keys share a bucket: %+v", d)
	}
	if newLimiter(0, 10) != nil {
		t.Fatal("0 per minute must turn the limit off")
	}
}

func TestLimiterMemoryIsBounded(t *testing.T) {
	l := newLimiter(600, 0)
	l.maxBuckets = 100
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	for i := range 1000 {
		l.take(fmt.Sprint("key", i))
		if n := l.size(); n > l.maxBuckets {
			t.Fatalf("%d buckets, cap %d", n, l.maxBuckets)
		}
	}
	// Once every bucket has refilled (a minute at most), a sweep drops them all.
	now = now.Add(time.Minute + sweepEvery)
	l.take("fresh")
	if n := l.size(); n != 1 {
		t.Fatalf("%d buckets left after idle sweep", n)
	}
}

func newLimited(t *testing.T, cfg Config) (*Server, *engine.Accounts) {
	t.Helper()
	d := internalDeps(t)
	cfg.PublicURL, cfg.Logger = "http://h", slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	return s, d.Accounts
}

func TestRateLimitPerKeyAndPerPipe(t *testing.T) {
	s, acc := newLimited(t, Config{RateLimitPerKey: 4, RateLimitPerPipe: 2})
	ctx := context.Background()
	acc.CreateUser(ctx, "alice")
	_, userKey, _ := acc.CreateKey(ctx, "alice", "")
	_, userKey2, _ := acc.CreateKey(ctx, "alice", "")
	var pipeKey, pipeKey2 string
	s.deps.Store.Update(ctx, func(tx engine.Tx) (err error) {
		if _, pipeKey, err = acc.CreatePipeKeyTx(context.Background(), tx, "alice", "pipe_1", "a"); err != nil {
			return err
		}
		_, pipeKey2, err = acc.CreatePipeKeyTx(context.Background(), tx, "alice", "pipe_1", "b")
		return err
	})
	run := func(c echo.Context) error {
		// A run with an owner key names its pipe: the handler charges it.
		if err := s.limitPipe(c, c.QueryParam("pipe")); err != nil {
			return err
		}
		return c.JSON(200, map[string]bool{"ok": true})
	}
	s.echo.GET("/t/run", run, s.authenticate(AuthRun), s.rateLimit)
	s.echo.GET("/t/public", run, s.authenticate(AuthNone), s.rateLimit)
	do := func(path, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec
	}
	for i := range 4 {
		r := do("/t/run", userKey)
		if r.Code != 200 || r.Header().Get("RateLimit-Remaining") != fmt.Sprint(3-i) || r.Header().Get("RateLimit-Limit") != "4" {
			t.Fatalf("request %d: %d %v", i, r.Code, r.Header())
		}
	}
	r := do("/t/run", userKey)
	if r.Code != 429 || r.Header().Get("Retry-After") != "15" || r.Header().Get("RateLimit-Reset") == "" {
		t.Fatalf("5th request: %d %v %s", r.Code, r.Header(), r.Body)
	}
	var body ErrorBody4xx
	json.Unmarshal(r.Body.Bytes(), &body)
	if body.Error.Code != engine.CodeRateLimited || body.Error.Status != 429 || body.Error.RateLimit == nil ||
		body.Error.RateLimit.Limit != 4 || body.Error.RateLimit.Remaining != 0 || body.Error.Message == "" {
		t.Fatalf("body %s", r.Body)
	}
	if r := do("/t/run", userKey2); r.Code != 200 {
		t.Fatalf("another key of the same owner is limited separately: %d", r.Code)
	}
	for range 10 {
		if r := do("/t/public", ""); r.Code != 200 || r.Header().Get("RateLimit-Limit") != "" {
			t.Fatalf("public route limited: %d", r.Code)
		}
	}
	// Per pipe: two pipe keys of one pipe share its budget of 2, and a run
	// by an owner key naming the pipe spends from it too; the tighter limit
	// shows in the headers.
	if r := do("/t/run", pipeKey); r.Code != 200 || r.Header().Get("RateLimit-Limit") != "2" || r.Header().Get("RateLimit-Remaining") != "1" {
		t.Fatalf("pipe key: %d %v", r.Code, r.Header())
	}
	if r := do("/t/run?pipe=pipe_1", userKey2); r.Code != 200 || r.Header().Get("RateLimit-Remaining") != "0" {
		t.Fatalf("owner run of the pipe: %d %v", r.Code, r.Header())
	}
	r = do("/t/run", pipeKey2)
	if r.Code != 429 || r.Header().Get("Retry-After") != "30" {
		t.Fatalf("pipe budget shared: %d %v", r.Code, r.Header())
	}
	json.Unmarshal(r.Body.Bytes(), &body)
	if body.Error.Message != "rate limit exceeded: this pipe may make 2 requests a minute; retry in 30 s" {
		t.Fatalf("message %q", body.Error.Message)
	}
}
