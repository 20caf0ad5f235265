package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-dev/hearth/blob/postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestNewerSchemaRefused: a binary facing a schema a newer Hearth wrote
// refuses to open and says which versions are involved.
func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	openURL(t, url, Options{}).Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	newer := SchemaVersion + 1
	if _, err := conn.Exec(ctx, `INSERT INTO hearth_schema (version) VALUES ($1)`, newer); err != nil {
		t.Fatal(err)
	}
	s := New(Options{URL: url})
	err = s.Open(ctx)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded on a newer schema")
	}
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("err = %v, want ErrSchemaTooNew", err)
	}
	for _, want := range []string{fmt.Sprintf("version %d", newer), fmt.Sprintf("up to %d", SchemaVersion), "newer hearth"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
}

// TestConcurrentOpenMigratesOnce: nodes starting together on an empty
// database all open, and each migration is applied exactly once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New(Options{URL: url})
			if errs[i] = s.Open(ctx); errs[i] == nil {
				s.Close()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, max int
	if err := conn.QueryRow(ctx, `SELECT count(*), max(version) FROM hearth_schema`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != SchemaVersion || max != SchemaVersion {
		t.Fatalf("hearth_schema holds %d rows up to %d, want %d", n, max, SchemaVersion)
	}
}

// TestMigrationStepsInOrder applies a later step set to a database at an
// earlier version: only the missing steps run.
func TestMigrationStepsInOrder(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s := openURL(t, url, Options{})
	steps := append(append([][]string(nil), migrations...), []string{`CREATE TABLE hearth_test_extra (x int)`})
	if err := migrate(ctx, s.pool, steps); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, s.pool, steps); err != nil {
		t.Fatalf("a second run of the same steps: %v", err)
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM hearth_schema`).Scan(&n); err != nil || n != len(steps) {
		t.Fatalf("schema rows %d, %v; want %d", n, err, len(steps))
	}
	broken := append(steps, []string{`CREATE TABLE hearth_test_ok (x int)`, `THIS IS NOT SQL`})
	if err := migrate(ctx, s.pool, broken); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("version %d", len(broken))) {
		t.Fatalf("a failing step: %v", err)
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('hearth_test_ok') IS NOT NULL`).Scan(&exists); err != nil || exists {
		t.Fatalf("a failed migration left part of its work (%v, %v)", exists, err)
	}
}
