package server_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-dev/hearth/engine"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// countingStore counts the message records its transactions read.
type countingStore struct {
	engine.Store
	reads atomic.Int64
}

func (s *countingStore) View(ctx context.Context, fn func(engine.Tx) error) error {
	return s.Store.View(ctx, func(tx engine.Tx) error { return fn(&countingTx{Tx: tx, s: s}) })
}

func (s *countingStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	return s.Store.Update(ctx, func(tx engine.Tx) error { return fn(&countingTx{Tx: tx, s: s}) })
}

type countingTx struct {
	engine.Tx
	s *countingStore
}

func (t *countingTx) count(key string) {
	if strings.HasPrefix(key, "msg/") {
		t.s.reads.Add(1)
	}
}

func (t *countingTx) GetRaw(key string) ([]byte, error) { t.count(key); return t.Tx.GetRaw(key) }
func (t *countingTx) Get(key string, v any) error       { t.count(key); return t.Tx.Get(key, v) }
func (t *countingTx) Scan(prefix, after string, fn func(string, []byte) error) error {
	return t.Tx.Scan(prefix, after, func(k string, v []byte) error { t.count(k); return fn(k, v) })
}

// A run on a long thread and a page of its newest messages read only what
// they return, not the whole thread.
func TestLongThreadReadsAreBounded(t *testing.T) {
	up := fake.NewOpenAI()
	defer up.Close()
	var cs *countingStore
	ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-server"),
		servertest.WithServices(func(a *app.App) {
			d := &a.Deps
			cs = &countingStore{Store: d.Store}
			d.Threads = engine.NewThreads(cs)
			d.Threads.SetLimits(engine.ThreadLimits{HistoryBytes: 4000})
			d.Runner = engine.NewRunner(engine.RunnerConfig{Pipes: d.Pipes, Threads: d.Threads, Keysets: d.Keysets,
				Providers: d.Providers, Memories: d.Memory, Retriever: d.Memory, RunLog: a.RunLog})
		}))
	key := servertest.AdminKey
	mustStatus(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "p", "model": "openai:gpt-4o-mini"}), 200)
	mustStatus(t, ts.Do("POST", "/v1/threads", key, map[string]any{"threadId": "long", "messages": texts(1000, "a")}), 200)
	for i := 0; i < 2; i++ {
		mustStatus(t, ts.Do("POST", "/v1/threads/long/messages", key, texts(1000, "b")), 200)
	}
	cs.reads.Store(0)
	mustStatus(t, ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "p", "threadId": "long", "messages": []any{user("q")}}), 200)
	if n := cs.reads.Load(); n > 40 {
		t.Fatalf("a run on a 3000-message thread read %d message records", n)
	}
	if msgs, _ := up.LastRequest().JSON()["messages"].([]any); len(msgs) < 5 || len(msgs) > 40 {
		t.Fatalf("history of %d messages for a 4000-byte budget", len(msgs))
	}
	cs.reads.Store(0)
	mustStatus(t, ts.Do("GET", "/v1/threads/long/messages?limit=5&order=desc", key, nil), 200)
	if n := cs.reads.Load(); n > 6 {
		t.Fatalf("a page of 5 read %d message records", n)
	}
}
