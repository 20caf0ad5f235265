package postgres

import (
	"context"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
)

// countTurn counts the waits marked on it.
type countTurn struct {
	mu            sync.Mutex
	away, returns int
	depth         int
}

func (c *countTurn) Leave() {
	c.mu.Lock()
	c.away++
	c.depth++
	c.mu.Unlock()
}

func (c *countTurn) Return() {
	c.mu.Lock()
	c.returns++
	c.depth--
	c.mu.Unlock()
}

// A request's statements, its wait for a pooled connection and its
// transactions mark waits on its CPU turn, each ended; a context without a
// turn is served as before.
func TestStatementsMarkWaitsOnTheRequestsTurn(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ct := &countTurn{}
	ctx := engine.WithTurn(context.Background(), ct)
	if err := s.Update(ctx, func(tx engine.Tx) error { return tx.Put("turns/a", map[string]int{"n": 1}) }); err != nil {
		t.Fatal(err)
	}
	var v map[string]int
	if err := s.View(ctx, func(tx engine.Tx) error { return tx.Get("turns/a", &v) }); err != nil || v["n"] != 1 {
		t.Fatalf("read back %v: %v", v, err)
	}
	ct.mu.Lock()
	away, returns, depth := ct.away, ct.returns, ct.depth
	ct.mu.Unlock()
	if away < 2 || returns != away || depth != 0 {
		t.Fatalf("%d waits marked, %d ended (depth %d): want every statement marked and ended", away, returns, depth)
	}
	if err := s.View(context.Background(), func(tx engine.Tx) error { return tx.Get("turns/a", &v) }); err != nil {
		t.Fatal(err)
	}
}
