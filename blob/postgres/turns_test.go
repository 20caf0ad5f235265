package postgres

import (
	"context"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
)

// A request's statements, its wait for a pooled connection and its
// transactions mark waits on its CPU turn, each ended; a context without a
// turn is served as before.
func TestStatementsMarkWaitsOnTheRequestsTurn(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	wc := &engine.WaitCount{}
	ctx := engine.WithTurn(context.Background(), wc)
	if err := s.Update(ctx, func(tx engine.Tx) error { return tx.Put("turns/a", map[string]int{"n": 1}) }); err != nil {
		t.Fatal(err)
	}
	var v map[string]int
	if err := s.View(ctx, func(tx engine.Tx) error { return tx.Get("turns/a", &v) }); err != nil || v["n"] != 1 {
		t.Fatalf("read back %v: %v", v, err)
	}
	if begun, ended := wc.Counts(); begun < 2 || ended != begun {
		t.Fatalf("%d waits marked, %d ended: want every statement marked and ended", begun, ended)
	}
	if err := s.View(context.Background(), func(tx engine.Tx) error { return tx.Get("turns/a", &v) }); err != nil {
		t.Fatal(err)
	}
}
