package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

type rec struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

// TestConformance runs one suite against every way the store can be opened.
func TestConformance(t *testing.T) {
	impls := map[string]func(t *testing.T) *Store{
		"disk":     func(t *testing.T) *Store { return openT(t, Options{Dir: t.TempDir()}) },
		"inmemory": func(t *testing.T) *Store { return openT(t, Options{InMemory: true}) },
	}
	for name, open := range impls {
		t.Run(name, func(t *testing.T) { runConformance(t, open) })
	}
}

func openT(t *testing.T, o Options) *Store {
	t.Helper()
	s := New(o)
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func runConformance(t *testing.T, open func(*testing.T) *Store) {
	ctx := context.Background()
	t.Run("get missing is ErrNotFound", func(t *testing.T) {
		s := open(t)
		err := s.View(ctx, func(tx engine.Tx) error { var r rec; return tx.Get("nope", &r) })
		if !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
	t.Run("put get delete", func(t *testing.T) {
		s := open(t)
		must(t, s.Update(ctx, func(tx engine.Tx) error { return tx.Put("a/1", rec{"x", 1}) }))
		var got rec
		must(t, s.View(ctx, func(tx engine.Tx) error { return tx.Get("a/1", &got) }))
		if got != (rec{"x", 1}) {
			t.Fatalf("got %+v", got)
		}
		must(t, s.Update(ctx, func(tx engine.Tx) error { return tx.Delete("a/1") }))
		err := s.View(ctx, func(tx engine.Tx) error {
			ok, err := tx.Exists("a/1")
			if ok {
				return fmt.Errorf("still exists")
			}
			return err
		})
		must(t, err)
	})
	t.Run("failed update writes nothing", func(t *testing.T) {
		s := open(t)
		boom := errors.New("boom")
		err := s.Update(ctx, func(tx engine.Tx) error {
			if err := tx.Put("a/1", rec{"x", 1}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
		err = s.View(ctx, func(tx engine.Tx) error { var r rec; return tx.Get("a/1", &r) })
		if !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("partial write visible: %v", err)
		}
	})
	t.Run("scan order, prefix, after, stop", func(t *testing.T) {
		s := open(t)
		must(t, s.Update(ctx, func(tx engine.Tx) error {
			for _, k := range []string{"p/3", "p/1", "p/2", "q/1", "o/9"} {
				if err := tx.PutRaw(k, []byte(k)); err != nil {
					return err
				}
			}
			return nil
		}))
		scan := func(after string, limit int) []string {
			var keys []string
			must(t, s.View(ctx, func(tx engine.Tx) error {
				return tx.Scan("p/", after, func(k string, v []byte) error {
					if string(v) != k {
						return fmt.Errorf("value %q for %q", v, k)
					}
					keys = append(keys, k)
					if len(keys) == limit {
						return engine.ErrStopScan
					}
					return nil
				})
			}))
			return keys
		}
		if got := fmt.Sprint(scan("", 0)); got != "[p/1 p/2 p/3]" {
			t.Fatalf("scan = %s", got)
		}
		if got := fmt.Sprint(scan("p/1", 0)); got != "[p/2 p/3]" {
			t.Fatalf("scan after = %s", got)
		}
		if got := fmt.Sprint(scan("", 2)); got != "[p/1 p/2]" {
			t.Fatalf("scan stop = %s", got)
		}
	})
	t.Run("blobs round trip, replace, delete", func(t *testing.T) {
		s := open(t)
		big := make([]byte, 3*partSize+123)
		rand.Read(big[:partSize]) // incompressible part plus compressible zeros
		n, err := s.PutBlob(ctx, "doc1", bytes.NewReader(big))
		must(t, err)
		if n != int64(len(big)) {
			t.Fatalf("size %d", n)
		}
		got, err := s.GetBlob(ctx, "doc1")
		must(t, err)
		if !bytes.Equal(got, big) {
			t.Fatal("blob differs")
		}
		_, err = s.PutBlob(ctx, "doc1", bytes.NewReader([]byte("small")))
		must(t, err)
		got, err = s.GetBlob(ctx, "doc1")
		must(t, err)
		if string(got) != "small" {
			t.Fatalf("replaced blob = %q", got)
		}
		must(t, s.DeleteBlob(ctx, "doc1"))
		if _, err := s.GetBlob(ctx, "doc1"); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("after delete: %v", err)
		}
		empty, err := s.PutBlob(ctx, "empty", bytes.NewReader(nil))
		must(t, err)
		if got, err := s.GetBlob(ctx, "empty"); err != nil || empty != 0 || len(got) != 0 {
			t.Fatalf("empty blob: %v %d %d", err, empty, len(got))
		}
	})
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	must(t, s.Open())
	must(t, s.Update(ctx, func(tx engine.Tx) error { return tx.Put("k", rec{"kept", 7}) }))
	_, err := s.PutBlob(ctx, "b", bytes.NewReader([]byte("bytes")))
	must(t, err)
	must(t, s.Close())

	s = New(Options{Dir: dir})
	must(t, s.Open())
	defer s.Close()
	var r rec
	must(t, s.View(ctx, func(tx engine.Tx) error { return tx.Get("k", &r) }))
	b, err := s.GetBlob(ctx, "b")
	must(t, err)
	if r.Name != "kept" || string(b) != "bytes" {
		t.Fatalf("after reopen: %+v %q", r, b)
	}
}

func TestSecondOpenIsLocked(t *testing.T) {
	dir := t.TempDir()
	openT(t, Options{Dir: dir})
	err := New(Options{Dir: dir}).Open()
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
