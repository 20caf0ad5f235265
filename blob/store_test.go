package blob

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/hearth-dev/hearth/blob/storetest"
	"github.com/hearth-dev/hearth/engine"
)

type rec struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

// TestConformance runs one suite against every way the store can be opened.
func TestConformance(t *testing.T) {
	impls := map[string]storetest.Opener{
		"disk":     func(t *testing.T) engine.Store { return openT(t, Options{Dir: t.TempDir()}) },
		"inmemory": func(t *testing.T) engine.Store { return openT(t, Options{InMemory: true}) },
	}
	for name, open := range impls {
		t.Run(name, func(t *testing.T) { storetest.Run(t, open) })
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
