package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5"
)

// TestTransactionRoundTrips: BEGIN travels with a transaction's first
// statements and COMMIT with its last writes, so an Update that only
// writes is one round trip, one that writes nothing none, a View of one
// read two (the read, ROLLBACK), and what they wrote is committed.
func TestTransactionRoundTrips(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ctx := context.Background()
	trips := func(name string, want uint64, f func() error) {
		t.Helper()
		before := s.RoundTrips()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := s.RoundTrips() - before; n != want {
			t.Errorf("%s: %d round trips, want %d", name, n, want)
		}
	}
	trips("write-only Update", 1, func() error {
		return s.Update(ctx, func(tx engine.Tx) error {
			for i := range 5 {
				if err := tx.PutRaw(fmt.Sprintf("w/%d", i), []byte{byte(i)}); err != nil {
					return err
				}
			}
			return tx.Delete("w/4")
		})
	})
	trips("empty Update", 0, func() error { return s.Update(ctx, func(engine.Tx) error { return nil }) })
	trips("empty View", 0, func() error { return s.View(ctx, func(engine.Tx) error { return nil }) })
	trips("read, then write", 2, func() error {
		return s.Update(ctx, func(tx engine.Tx) error {
			v, err := tx.GetRaw("w/1")
			if err != nil {
				return err
			}
			return tx.PutRaw("w/copy", v)
		})
	})
	trips("View of one read", 2, func() error {
		return s.View(ctx, func(tx engine.Tx) error {
			v, err := tx.GetRaw("w/copy")
			if err == nil && (len(v) != 1 || v[0] != 1) {
				err = fmt.Errorf("w/copy = %v, want [1]", v)
			}
			return err
		})
	})
	err := s.View(ctx, func(tx engine.Tx) error {
		if _, err := tx.GetRaw("w/4"); !errors.Is(err, engine.ErrNotFound) {
			return fmt.Errorf("deleted w/4: %v", err)
		}
		got, err := engine.GetRawMany(tx, []string{"w/0", "w/3"})
		if err == nil && (len(got[0]) != 1 || len(got[1]) != 1 || got[1][0] != 3) {
			err = fmt.Errorf("w/0, w/3 = %v", got)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSwallowedStatementErrorDoesNotCommit: when a statement of an Update
// fails and fn ignores the error, the transaction is aborted on the
// server; Update must report it rather than send a COMMIT that PostgreSQL
// answers with ROLLBACK, and nothing of it may land. The connection goes
// back to the pool usable.
func TestSwallowedStatementErrorDoesNotCommit(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{MaxConns: 1})
	ctx := context.Background()
	err := s.Update(ctx, func(e engine.Tx) error {
		if err := e.PutRaw("kept?", []byte("1")); err != nil {
			return err
		}
		_ = e.(*tx).read(func(pgx.Rows) error { return nil }, `SELECT 1/0`) // fails on the server
		return e.PutRaw("after", []byte("2"))
	})
	if err == nil {
		t.Fatal("Update committed a transaction whose statement failed")
	}
	err = s.View(ctx, func(tx engine.Tx) error {
		for _, k := range []string{"kept?", "after"} {
			if _, err := tx.GetRaw(k); !errors.Is(err, engine.ErrNotFound) {
				return fmt.Errorf("%s after the failed Update: %v, want not found", k, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
