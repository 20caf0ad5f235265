package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
)

// TestQueuedWritesKeepOrder: an Update's queued writes (puts of one key
// twice, deletes between puts, more rows than one send holds, a buffer the
// caller reuses) read back inside the transaction and after its commit as
// if each had been sent at once, in one round trip per read.
func TestQueuedWritesKeepOrder(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ctx := context.Background()
	buf := []byte("first")
	err := s.Update(ctx, func(tx engine.Tx) error {
		for _, w := range []struct{ k, v string }{{"a", "1"}, {"b", "2"}, {"a", "3"}, {"c", "4"}} {
			if err := tx.PutRaw(w.k, []byte(w.v)); err != nil {
				return err
			}
		}
		if err := tx.Delete("b"); err != nil {
			return err
		}
		if err := tx.PutRaw("d", buf); err != nil {
			return err
		}
		copy(buf, "XXXXX") // the caller reuses its buffer
		for i := range pendingRows + 10 {
			if err := tx.PutRaw(fmt.Sprintf("n/%04d", i), []byte{byte(i)}); err != nil {
				return err
			}
		}
		if err := tx.PutRaw("c", []byte("5")); err != nil {
			return err
		}
		before := s.RoundTrips()
		v, err := tx.GetRaw("a")
		if err != nil || string(v) != "3" {
			return fmt.Errorf("a in the transaction: %q %v", v, err)
		}
		if n := s.RoundTrips() - before; n != 1 {
			return fmt.Errorf("a read after queued writes took %d round trips, want 1 (the writes and the read together)", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx engine.Tx) error {
		for k, want := range map[string]string{"a": "3", "c": "5", "d": "first"} {
			if v, err := tx.GetRaw(k); err != nil || string(v) != want {
				return fmt.Errorf("%s: %q %v, want %q", k, v, err, want)
			}
		}
		if _, err := tx.GetRaw("b"); !errors.Is(err, engine.ErrNotFound) {
			return fmt.Errorf("deleted b: %v", err)
		}
		n := 0
		err := tx.Scan("n/", "", func(k string, v []byte) error {
			if want := fmt.Sprintf("n/%04d", n); k != want || len(v) != 1 || v[0] != byte(n) {
				return fmt.Errorf("row %d: %s %v", n, k, v)
			}
			n++
			return nil
		})
		if err == nil && n != pendingRows+10 {
			err = fmt.Errorf("%d rows, want %d", n, pendingRows+10)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGetRawMany: several keys in one round trip, in order, nil for a
// missing key and non-nil for an empty value, seeing the transaction's
// own queued writes (sent in the same round trip).
func TestGetRawMany(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	err := s.Update(context.Background(), func(tx engine.Tx) error {
		if err := tx.PutRaw("a", []byte("1")); err != nil {
			return err
		}
		if err := tx.PutRaw("e", nil); err != nil {
			return err
		}
		before := s.RoundTrips()
		got, err := engine.GetRawMany(tx, []string{"a", "missing", "e", "a"})
		if err != nil {
			return err
		}
		if n := s.RoundTrips() - before; n != 1 {
			return fmt.Errorf("%d round trips, want 1 (the writes and the read together)", n)
		}
		if len(got) != 4 || string(got[0]) != "1" || got[1] != nil || got[2] == nil || len(got[2]) != 0 || string(got[3]) != "1" {
			return fmt.Errorf("got %q", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadRawMany: the store reads committed keys outside any transaction
// in one round trip, in order, nil for a missing key and non-nil for an
// empty value; engine.ReadRawMany uses it.
func TestReadRawMany(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ctx := context.Background()
	err := s.Update(ctx, func(tx engine.Tx) error {
		if err := tx.PutRaw("ra", []byte("1")); err != nil {
			return err
		}
		return tx.PutRaw("re", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	before := s.RoundTrips()
	got, err := engine.ReadRawMany(ctx, s, []string{"ra", "missing", "re", "ra"})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.RoundTrips() - before; n != 1 {
		t.Errorf("%d round trips, want 1", n)
	}
	if len(got) != 4 || string(got[0]) != "1" || got[1] != nil || got[2] == nil || len(got[2]) != 0 || string(got[3]) != "1" {
		t.Errorf("got %q", got)
	}
	if _, err := engine.ReadRaw(ctx, s, "missing"); !engine.IsNotFound(err) {
		t.Errorf("ReadRaw of a missing key: %v, want not found", err)
	}
}
