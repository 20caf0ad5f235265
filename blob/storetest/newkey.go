package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// testSetNew: a store whose Tx is an engine.NewKeySetter gives SetNew
// Put's effect in every case: a new key, a key that exists already (in
// the store, or written earlier in the same transaction), mixed in order
// with Put and Delete; and a failed transaction leaves none of it.
func testSetNew(t *testing.T, s engine.Store) {
	ctx := context.Background()
	probe := false
	must(t, s.View(ctx, func(tx engine.Tx) error { _, probe = tx.(engine.NewKeySetter); return nil }))
	if !probe {
		t.Skip("the store's Tx has no SetNew")
	}
	put(t, s, "n/old", "before", "n/gone", "x")
	setNew := func(tx engine.Tx, k, v string) error {
		return tx.(engine.NewKeySetter).SetNew([]byte(k), []byte(v))
	}
	// New keys only, then the same with an existing key among them: the
	// whole transaction is written either way, once.
	must(t, s.Update(ctx, func(tx engine.Tx) error {
		for _, k := range []string{"n/a", "n/b"} {
			if err := setNew(tx, k, k+"1"); err != nil {
				return err
			}
		}
		return tx.PutRaw("n/c", []byte("put"))
	}))
	runs := 0
	must(t, s.Update(ctx, func(tx engine.Tx) error {
		runs++
		if err := setNew(tx, "n/d", "d1"); err != nil {
			return err
		}
		if err := setNew(tx, "n/old", "after"); err != nil {
			return err
		}
		if err := tx.Delete("n/gone"); err != nil {
			return err
		}
		if err := setNew(tx, "n/e", "e1"); err != nil {
			return err
		}
		if err := setNew(tx, "n/e", "e2"); err != nil { // twice in one transaction: the last wins
			return err
		}
		return tx.PutRaw("n/d", []byte("d2")) // Put after SetNew of the same key wins
	}))
	want := map[string]string{"n/a": "n/a1", "n/b": "n/b1", "n/c": "put", "n/d": "d2", "n/e": "e2", "n/old": "after"}
	for k, v := range want {
		if got, ok := getRaw(t, s, k); !ok || got != v {
			t.Errorf("%s = %q (found %v), want %q (runs of the second update: %d)", k, got, ok, v, runs)
		}
	}
	if _, ok := getRaw(t, s, "n/gone"); ok {
		t.Error("n/gone was deleted with the SetNew of an existing key, and is still there")
	}
	// A transaction that fails after SetNew leaves nothing.
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx engine.Tx) error {
		if err := setNew(tx, "n/f", "f1"); err != nil {
			return err
		}
		if err := setNew(tx, "n/old", "lost"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failed update: %v, want boom", err)
	}
	if _, ok := getRaw(t, s, "n/f"); ok {
		t.Error("n/f written by a failed transaction")
	}
	if got, _ := getRaw(t, s, "n/old"); got != "after" {
		t.Errorf("n/old = %q after a failed transaction, want %q", got, "after")
	}
}
