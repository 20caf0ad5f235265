package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/blob/storetest"
	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openURL(t testing.TB, url string, opts Options) *Store {
	t.Helper()
	opts.URL = url
	s := New(opts)
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) engine.Store { return openURL(t, pgtest.URL(t), Options{}) })
}

// TestTwoNodesAppend runs two stores with their own pools ("nodes") on one
// database, each with several goroutines appending to one list through
// read-modify-write Updates: all 500 items must land, each writer's in order.
func TestTwoNodesAppend(t *testing.T) {
	url := pgtest.URL(t)
	nodes := []*Store{openURL(t, url, Options{}), openURL(t, url, Options{})}
	const writersPerNode, each = 5, 50
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 2*writersPerNode)
	for ni, node := range nodes {
		for w := 0; w < writersPerNode; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					item := fmt.Sprintf("%d.%d.%03d", ni, w, i)
					err := node.Update(ctx, func(tx engine.Tx) error {
						var list []string
						if err := tx.Get("thread/1/messages", &list); err != nil && !errors.Is(err, engine.ErrNotFound) {
							return err
						}
						return tx.Put("thread/1/messages", append(list, item))
					})
					if err != nil {
						errs <- fmt.Errorf("append %s: %w", item, err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var list []string
	if err := nodes[1].View(ctx, func(tx engine.Tx) error { return tx.Get("thread/1/messages", &list) }); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2*writersPerNode*each {
		t.Fatalf("%d items in the list, want %d: updates were lost", len(list), 2*writersPerNode*each)
	}
	last := map[string]string{}
	seen := map[string]bool{}
	for _, item := range list {
		if seen[item] {
			t.Fatalf("item %s appended twice", item)
		}
		seen[item] = true
		writer := item[:strings.LastIndexByte(item, '.')]
		if item <= last[writer] {
			t.Fatalf("item %s after %s: a writer's order was not kept", item, last[writer])
		}
		last[writer] = item
	}
	t.Logf("retries: node 0 %d, node 1 %d", nodes[0].Retries(), nodes[1].Retries())
}

// TestFnErrorsNotRetried: only serialization failures re-run fn.
func TestFnErrorsNotRetried(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	calls := 0
	boom := errors.New("boom")
	err := s.Update(context.Background(), func(tx engine.Tx) error { calls++; return boom })
	if !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("err %v after %d calls, want boom after 1", err, calls)
	}
}

// TestRetryBound: a transaction that keeps failing to serialize is run
// MaxAttempts times, each retry counted, then refused as SERVICE_UNAVAILABLE.
func TestRetryBound(t *testing.T) {
	hooked := 0
	s := openURL(t, pgtest.URL(t), Options{MaxAttempts: 3, OnRetry: func() { hooked++ }})
	calls := 0
	err := s.Update(context.Background(), func(tx engine.Tx) error {
		calls++
		if err := tx.PutRaw("k", []byte("v")); err != nil {
			return err
		}
		return &pgconn.PgError{Code: "40001", Message: "could not serialize access"}
	})
	if engine.ErrorCode(err) != engine.CodeUnavailable || calls != 3 || s.Retries() != 2 || hooked != 2 {
		t.Fatalf("err %v after %d calls, %d retries counted, hook %d; want SERVICE_UNAVAILABLE after 3, 2, 2", err, calls, s.Retries(), hooked)
	}
	if err := s.View(context.Background(), func(tx engine.Tx) error { _, err := tx.GetRaw("k"); return err }); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("a write of a retried-out transaction is visible: %v", err)
	}
}
