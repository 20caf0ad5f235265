package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/hearth-dev/hearth/engine"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestScanLargeValuesPaged: a prefix of large values is read in pages cut
// by size, and still visited whole and in order.
func TestScanLargeValuesPaged(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ctx := context.Background()
	const n = 11
	val := bytes.Repeat([]byte{'v'}, 1<<20)
	for i := 0; i < n; i++ {
		if err := s.Update(ctx, func(tx engine.Tx) error { return tx.PutRaw(fmt.Sprintf("big/%02d", i), val) }); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	err := s.View(ctx, func(tx engine.Tx) error {
		return tx.Scan("big/", "", func(k string, v []byte) error {
			if len(v) != len(val) {
				return fmt.Errorf("%s: %d bytes", k, len(v))
			}
			keys = append(keys, k)
			return nil
		})
	})
	if err != nil || len(keys) != n || keys[n-1] != fmt.Sprintf("big/%02d", n-1) {
		t.Fatalf("scan of large values: %v, %v", keys, err)
	}
}

func TestSuccessor(t *testing.T) {
	cases := map[string]string{"a": "b", "a/": "a0", "a\xff": "b", "a\xfe\xff": "a\xff", "": "", "\xff\xff": ""}
	for in, want := range cases {
		if got := string(successor([]byte(in))); got != want {
			t.Errorf("successor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSweepBlobParts: parts of a write cut short by a crash (no hearth_blobs
// row) go after the grace period; parts of live blobs stay.
func TestSweepBlobParts(t *testing.T) {
	s := openURL(t, pgtest.URL(t), Options{})
	ctx := context.Background()
	if _, err := s.PutBlob(ctx, "live", bytes.NewReader([]byte("kept"))); err != nil {
		t.Fatal(err)
	}
	// What a crash between the parts and the publishing transaction leaves.
	if _, _, err := s.writeParts(ctx, "crashed", 42, io.LimitReader(zeros{}, 3<<20)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SweepBlobParts(ctx, time.Hour); err != nil || n != 0 {
		t.Fatalf("sweep within the grace period deleted %d parts, %v", n, err)
	}
	if _, err := s.pool.Exec(ctx, `UPDATE hearth_blob_parts SET created_at = now() - interval '2 hours'`); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SweepBlobParts(ctx, time.Hour); err != nil || n != 3 {
		t.Fatalf("sweep deleted %d parts, %v; want the 3 orphans", n, err)
	}
	if b, err := s.GetBlob(ctx, "live"); err != nil || string(b) != "kept" {
		t.Fatalf("live blob after the sweep: %q, %v", b, err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestMapErr(t *testing.T) {
	cases := []struct {
		err  error
		code string
	}{
		{&pgconn.PgError{Code: "40001"}, engine.CodeUnavailable},
		{&pgconn.PgError{Code: "53100"}, engine.CodeInsufficientStore},
		{&pgconn.PgError{Code: "57P01"}, engine.CodeUnavailable},
		{&pgconn.PgError{Code: "08006"}, engine.CodeUnavailable},
		{&pgconn.PgError{Code: "25006"}, engine.CodeUnavailable},
		{&pgconn.PgError{Code: "54000"}, engine.CodePayloadTooLarge},
		{fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "53100"}), engine.CodeInsufficientStore},
		{&pgconn.PgError{Code: "23505"}, engine.CodeInternal},
	}
	for _, c := range cases {
		got := mapErr(c.err)
		if engine.ErrorCode(got) != c.code || !errors.Is(got, c.err) {
			t.Errorf("mapErr(%v) = %v, want code %s keeping the cause", c.err, got, c.code)
		}
	}
	if mapErr(context.Canceled) != context.Canceled {
		t.Error("context errors must pass through")
	}
}

// TestUnreachableDatabase: Open against a closed port fails fast and says so.
func TestUnreachableDatabase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := New(Options{URL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5"})
	if err := s.Open(ctx); err == nil {
		s.Close()
		t.Fatal("Open succeeded against a closed port")
	}
}
