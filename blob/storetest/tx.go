package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

func testFailedUpdateWritesNothing(t *testing.T, s engine.Store) {
	ctx := context.Background()
	put(t, s, "keep", "old", "gone", "here")
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx engine.Tx) error {
		for _, op := range []error{tx.PutRaw("new", []byte("x")), tx.PutRaw("keep", []byte("changed")), tx.Delete("gone")} {
			if op != nil {
				return op
			}
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}
	// A domain error from fn comes back as itself, code and all.
	err = s.Update(ctx, func(tx engine.Tx) error { return engine.Errorf(engine.CodeConflict, "taken") })
	if engine.ErrorCode(err) != engine.CodeConflict {
		t.Fatalf("Update returned %v, want fn's CONFLICT", err)
	}
	if _, ok := getRaw(t, s, "new"); ok {
		t.Error("a put of the failed transaction is visible")
	}
	if v, _ := getRaw(t, s, "keep"); v != "old" {
		t.Errorf("keep = %q after the failed transaction, want old", v)
	}
	if v, ok := getRaw(t, s, "gone"); !ok || v != "here" {
		t.Errorf("a delete of the failed transaction is visible (%q, %v)", v, ok)
	}
}

func testReadYourWrites(t *testing.T, s engine.Store) {
	put(t, s, "old", "1")
	must(t, s.Update(context.Background(), func(tx engine.Tx) error {
		if err := tx.Put("k", rec{"first", 1}); err != nil {
			return err
		}
		var r rec
		if err := tx.Get("k", &r); err != nil || r.Name != "first" {
			return fmt.Errorf("Get after Put = %+v, %v", r, err)
		}
		if err := tx.Put("k", rec{"second", 2}); err != nil {
			return err
		}
		if err := tx.Get("k", &r); err != nil || r.Name != "second" {
			return fmt.Errorf("Get after overwrite = %+v, %v", r, err)
		}
		if err := tx.Delete("old"); err != nil {
			return err
		}
		if ok, err := tx.Exists("old"); ok || err != nil {
			return fmt.Errorf("Exists after Delete = %v, %v", ok, err)
		}
		if _, err := tx.GetRaw("old"); !errors.Is(err, engine.ErrNotFound) {
			return fmt.Errorf("GetRaw after Delete: %v", err)
		}
		if err := tx.PutRaw("old", []byte("2")); err != nil {
			return err
		}
		if b, err := tx.GetRaw("old"); err != nil || string(b) != "2" {
			return fmt.Errorf("GetRaw after Delete and PutRaw = %q, %v", b, err)
		}
		return nil
	}))
	if v, _ := getRaw(t, s, "old"); v != "2" {
		t.Fatalf("committed old = %q, want 2", v)
	}
}

func testWriteInViewFails(t *testing.T, s engine.Store) {
	put(t, s, "v/del", "x")
	err := s.View(context.Background(), func(tx engine.Tx) error { return tx.PutRaw("v/put", []byte("x")) })
	if err == nil {
		t.Error("PutRaw inside View succeeded")
	}
	err = s.View(context.Background(), func(tx engine.Tx) error { return tx.Delete("v/del") })
	if err == nil {
		t.Error("Delete inside View succeeded")
	}
	if _, ok := getRaw(t, s, "v/put"); ok {
		t.Error("a write inside View was stored")
	}
	if _, ok := getRaw(t, s, "v/del"); !ok {
		t.Error("a delete inside View was applied")
	}
}

func testCanceledContext(t *testing.T, s engine.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	fn := func(tx engine.Tx) error { called = true; return tx.PutRaw("c", []byte("x")) }
	if err := s.Update(ctx, fn); !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a canceled context: %v", err)
	}
	if err := s.View(ctx, func(tx engine.Tx) error { called = true; return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("View with a canceled context: %v", err)
	}
	if called {
		t.Error("fn ran under a canceled context")
	}
	if _, ok := getRaw(t, s, "c"); ok {
		t.Error("Update with a canceled context wrote")
	}
}
