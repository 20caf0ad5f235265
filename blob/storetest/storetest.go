// Package storetest is the conformance suite of engine.Store. Every
// implementation (Badger in blob, PostgreSQL in blob/postgres, the in-memory
// fake in index/internal/memstore) runs the same Run, so the fakes cannot
// drift from the real stores and a new backend inherits every guarantee the
// engine relies on: atomic transactions, read-your-writes, snapshot reads,
// bytewise-ordered prefix scans with cursors, no lost updates, and blobs that
// are either complete or absent.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hearth-dev/hearth/engine"
)

// Opener returns a new, empty store; it registers its own cleanup on t.
type Opener func(t *testing.T) engine.Store

// Run runs the whole suite, each case on a fresh store from open.
func Run(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s engine.Store)
	}{
		{"GetMissing", testGetMissing},
		{"PutGetOverwriteDelete", testPutGetOverwriteDelete},
		{"RawRoundTrip", testRawRoundTrip},
		{"DecodeErrors", testDecodeErrors},
		{"FailedUpdateWritesNothing", testFailedUpdateWritesNothing},
		{"ReadYourWrites", testReadYourWrites},
		{"WriteInViewFails", testWriteInViewFails},
		{"CanceledContext", testCanceledContext},
		{"ScanBytewiseOrder", testScanBytewiseOrder},
		{"ScanAllByteValues", testScanAllByteValues},
		{"ScanAfterCursor", testScanAfterCursor},
		{"ScanPaging", testScanPaging},
		{"ScanStopAndErrors", testScanStopAndErrors},
		{"ScanSeesOwnWrites", testScanSeesOwnWrites},
		{"ViewSnapshot", testViewSnapshot},
		{"SnapshotInvariant", testSnapshotInvariant},
		{"ConcurrentIncrements", testConcurrentIncrements},
		{"NoWriteSkew", testNoWriteSkew},
		{"BlobRoundTrip", testBlobRoundTrip},
		{"BlobEmptyAndMissing", testBlobEmptyAndMissing},
		{"BlobFailedWrite", testBlobFailedWrite},
		{"ListBlobs", testListBlobs},
		{"SetNew", testSetNew},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

type rec struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func put(t *testing.T, s engine.Store, kv ...string) {
	t.Helper()
	must(t, s.Update(context.Background(), func(tx engine.Tx) error {
		for i := 0; i+1 < len(kv); i += 2 {
			if err := tx.PutRaw(kv[i], []byte(kv[i+1])); err != nil {
				return err
			}
		}
		return nil
	}))
}

// getRaw reads key in its own View; missing keys read as ok=false.
func getRaw(t *testing.T, s engine.Store, key string) (string, bool) {
	t.Helper()
	var b []byte
	err := s.View(context.Background(), func(tx engine.Tx) error {
		var err error
		b, err = tx.GetRaw(key)
		return err
	})
	if errors.Is(err, engine.ErrNotFound) {
		return "", false
	}
	must(t, err)
	return string(b), true
}

// scan collects up to limit keys (0: all) of prefix after `after`, checking
// that every value equals its key, as put writes them in the scan tests.
func scan(t *testing.T, s engine.Store, prefix, after string, limit int) []string {
	t.Helper()
	var keys []string
	must(t, s.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan(prefix, after, func(k string, v []byte) error {
			if string(v) != k {
				return fmt.Errorf("value %q for key %q", v, k)
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

func testGetMissing(t *testing.T, s engine.Store) {
	err := s.View(context.Background(), func(tx engine.Tx) error {
		var r rec
		if err := tx.Get("nope", &r); !errors.Is(err, engine.ErrNotFound) {
			return fmt.Errorf("Get: %v, want ErrNotFound", err)
		}
		if _, err := tx.GetRaw("nope"); !errors.Is(err, engine.ErrNotFound) {
			return fmt.Errorf("GetRaw: %v, want ErrNotFound", err)
		}
		if ok, err := tx.Exists("nope"); ok || err != nil {
			return fmt.Errorf("Exists = %v, %v", ok, err)
		}
		return nil
	})
	must(t, err)
	// Deleting a missing key is not an error.
	must(t, s.Update(context.Background(), func(tx engine.Tx) error { return tx.Delete("nope") }))
}

func testPutGetOverwriteDelete(t *testing.T, s engine.Store) {
	ctx := context.Background()
	must(t, s.Update(ctx, func(tx engine.Tx) error { return tx.Put("a/1", rec{"x", 1}) }))
	must(t, s.Update(ctx, func(tx engine.Tx) error { return tx.Put("a/1", rec{"y", 2}) }))
	var got rec
	must(t, s.View(ctx, func(tx engine.Tx) error { return tx.Get("a/1", &got) }))
	if got != (rec{"y", 2}) {
		t.Fatalf("got %+v after overwrite", got)
	}
	must(t, s.Update(ctx, func(tx engine.Tx) error { return tx.Delete("a/1") }))
	must(t, s.View(ctx, func(tx engine.Tx) error {
		if ok, err := tx.Exists("a/1"); ok || err != nil {
			return fmt.Errorf("Exists after delete = %v, %v", ok, err)
		}
		if err := tx.Get("a/1", &got); !errors.Is(err, engine.ErrNotFound) {
			return fmt.Errorf("Get after delete: %v", err)
		}
		return nil
	}))
}

func testRawRoundTrip(t *testing.T, s engine.Store) {
	ctx := context.Background()
	bin := make([]byte, 256)
	for i := range bin {
		bin[i] = byte(i)
	}
	// Badger's in-memory mode refuses values of 1 MiB and more (it has no
	// value log); the on-disk stores and PostgreSQL take larger ones.
	large := make([]byte, 1<<20-4<<10)
	for i := range large {
		large[i] = byte(i * 7)
	}
	vals := map[string][]byte{"raw/bin": bin, "raw/empty": {}, "raw/large": large, "raw/json": []byte(`{"name":"j","n":3}`)}
	must(t, s.Update(ctx, func(tx engine.Tx) error {
		for k, v := range vals {
			if err := tx.PutRaw(k, v); err != nil {
				return err
			}
		}
		return tx.Put("raw/typed", rec{"t", 4})
	}))
	// The store must not keep the caller's slice.
	vals["raw/bin"] = append([]byte(nil), bin...)
	bin[0] = 99
	must(t, s.View(ctx, func(tx engine.Tx) error {
		for k, want := range vals {
			got, err := tx.GetRaw(k)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			if string(got) != string(want) {
				return fmt.Errorf("%s: %d bytes differ from the %d written", k, len(got), len(want))
			}
			if ok, err := tx.Exists(k); !ok || err != nil {
				return fmt.Errorf("Exists(%s) = %v, %v", k, ok, err)
			}
		}
		var r rec
		if err := tx.Get("raw/json", &r); err != nil || r != (rec{"j", 3}) {
			return fmt.Errorf("Get of raw JSON = %+v, %v", r, err)
		}
		b, err := tx.GetRaw("raw/typed")
		if err != nil || string(b) != `{"name":"t","n":4}` {
			return fmt.Errorf("GetRaw of Put = %s, %v", b, err)
		}
		return nil
	}))
}

func testDecodeErrors(t *testing.T, s engine.Store) {
	ctx := context.Background()
	put(t, s, "bad", "not json")
	err := s.View(ctx, func(tx engine.Tx) error { var r rec; return tx.Get("bad", &r) })
	if err == nil || errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("Get of a non-JSON value: %v, want a decode error", err)
	}
	err = s.Update(ctx, func(tx engine.Tx) error {
		if err := tx.Put("ok", rec{"kept?", 1}); err != nil {
			return err
		}
		return tx.Put("chan", make(chan int))
	})
	if err == nil {
		t.Fatal("Put of an unencodable value succeeded")
	}
	if _, ok := getRaw(t, s, "ok"); ok {
		t.Fatal("a write before the failed Put was committed")
	}
}
