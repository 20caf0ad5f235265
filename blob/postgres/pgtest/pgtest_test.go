package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// TestFreshDatabases: each URL is its own empty database on one cluster,
// with a collation that does not sort bytewise (so stores must not rely on it).
func TestFreshDatabases(t *testing.T) {
	ctx := context.Background()
	a, b := URL(t), URL(t)
	if a == b {
		t.Fatal("two tests got the same database")
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, "CREATE TABLE t (s text)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var n int
	if err := cb.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 't'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("second database sees the first one's table: %d, %v", n, err)
	}
	var less bool
	if err := ca.QueryRow(ctx, "SELECT 'a-b' < 'a_b'").Scan(&less); err != nil {
		t.Fatal(err)
	}
	if less {
		t.Log("the database collation sorts bytewise (ICU unavailable); store tests are weaker here")
	}
}
